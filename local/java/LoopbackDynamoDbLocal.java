import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local exactly as its own main class does (same command-line options), but with its HTTP
 * connector bound to 127.0.0.1: DynamoDB Local has no host option and otherwise listens on every interface,
 * where anyone on the network could read and write every tenant's data (it checks no signatures).
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
    proxy.start();
    System.out.println("DynamoDB Local listening on 127.0.0.1 only");
    proxy.join();
  }
}
