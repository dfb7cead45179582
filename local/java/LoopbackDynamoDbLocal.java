import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local exactly as its own main class does (same command-line options), but with its HTTP
 * connector bound to 127.0.0.1: DynamoDB Local has no host option and otherwise listens on every interface,
 * where anyone on the network could read and write every tenant's data (it checks no signatures).
 *
 * With DYNAMODB_LOCAL_ACCESS_KEY_ID in its environment it is also behind the local stack's engine wall, the
 * rule `refusedEngineCall` in local/engine-guard.ts states (the SQS emulator's check, and the guard used
 * when this launcher cannot be compiled): a Host that is not a loopback name gets the stack's 403
 * host_not_allowed (DNS rebinding), a call whose SigV4 Authorization does not name the start's access key
 * id gets DynamoDB's UnrecognizedClientException. Checked here, in the engine, a call costs no extra hop.
 */
public final class LoopbackDynamoDbLocal {
  private static final Pattern KEY_ID = Pattern.compile("^AWS4-HMAC-SHA256 Credential=([^/\\s,]+)/");
  private static final Pattern BRACKETED = Pattern.compile("^\\[([^\\]]*)\\](?::\\d*)?$");
  private static final Pattern IPV4_LOOPBACK = Pattern.compile("^127(\\.\\d{1,3}){3}$");

  /** The same names `isLoopbackHost` (local/http-io.ts) takes: localhost, ::1, 127.0.0.0/8, with or without a port. */
  static boolean isLoopbackHost(String host) {
    if (host == null || host.isEmpty()) return false;
    Matcher bracketed = BRACKETED.matcher(host);
    boolean isBracketed = bracketed.matches();
    if (host.startsWith("[") && !isBracketed) return false;
    String name = isBracketed ? bracketed.group(1) : host.replaceFirst(":\\d*$", "");
    return name.equals("localhost") || name.equals("::1") || IPV4_LOOPBACK.matcher(name).matches();
  }

  private static boolean refuse(Response response, Callback callback, int status, String contentType, String body) {
    response.setStatus(status);
    response.getHeaders().put("Content-Type", contentType);
    response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    return true;
  }

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) return;
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector serverConnector) serverConnector.setHost("127.0.0.1");
      else throw new IllegalStateException("Unexpected connector " + connector + ": cannot bind it to loopback");
    }
    String keyId = System.getenv("DYNAMODB_LOCAL_ACCESS_KEY_ID");
    if (keyId != null && !keyId.isEmpty()) {
      byte[] expected = keyId.getBytes(StandardCharsets.UTF_8);
      server.setHandler(
          new Handler.Wrapper(server.getHandler()) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
              if (!isLoopbackHost(request.getHeaders().get("Host"))) {
                return refuse(response, callback, 403, "application/json",
                    "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"host_not_allowed\",\"message\":\"The local stack answers requests to 127.0.0.1, localhost or [::1] only.\"}}");
              }
              String authorization = request.getHeaders().get("Authorization");
              Matcher presented = KEY_ID.matcher(authorization == null ? "" : authorization);
              if (presented.find() && MessageDigest.isEqual(presented.group(1).getBytes(StandardCharsets.UTF_8), expected)) {
                return super.handle(request, response, callback);
              }
              String message = presented.find(0)
                  ? "The security token included in the request is invalid: the local stack's DynamoDB Local takes only the access key id its stack generated at start (AWS_ACCESS_KEY_ID of its handlers, accessKeyId in local-stack.json)."
                  : "Request is missing Authentication Token: the local stack's DynamoDB Local takes only calls signed with the access key id its stack generated at start.";
              return refuse(response, callback, 400, "application/x-amz-json-1.0",
                  "{\"__type\":\"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException\",\"message\":\"" + message + "\"}");
            }
          });
    }
    proxy.start();
    System.out.println("DynamoDB Local listening on 127.0.0.1 only");
    proxy.join();
  }
}
