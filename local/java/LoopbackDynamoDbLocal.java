import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
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
 * With DYNAMODB_LOCAL_GUARD_TOKEN in its environment it also answers 403 to any request whose
 * X-Local-Guard header is not that token: only the guard in front of it (local/engine-guard.ts), which
 * checks the Host and the credentials, knows it, so finding this port gives a web page or another user of
 * the machine nothing.
 */
public final class LoopbackDynamoDbLocal {
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
    String token = System.getenv("DYNAMODB_LOCAL_GUARD_TOKEN");
    if (token != null && !token.isEmpty()) {
      byte[] expected = token.getBytes(StandardCharsets.UTF_8);
      server.setHandler(
          new Handler.Wrapper(server.getHandler()) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
              String presented = request.getHeaders().get("X-Local-Guard");
              if (presented != null && MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), expected)) {
                return super.handle(request, response, callback);
              }
              Response.writeError(request, response, callback, 403, "Only the local stack's guard may call this port");
              return true;
            }
          });
    }
    proxy.start();
    System.out.println("DynamoDB Local listening on 127.0.0.1 only");
    proxy.join();
  }
}
