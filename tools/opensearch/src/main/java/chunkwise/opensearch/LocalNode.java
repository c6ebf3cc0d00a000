package chunkwise.opensearch;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.logging.log4j.LogManager;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;

/**
 * Starts one OpenSearch node in this JVM and keeps it running until the process is told to stop
 * (SIGTERM/SIGINT run the shutdown hook, which closes the node cleanly).
 *
 * <p>Every setting comes from the command line as {@code -Ekey=value}; {@code path.home} must
 * point at the folder built by pom.xml (lib/, modules/, plugins/, config/). Modules and plugins
 * are loaded from that folder by OpenSearch's own PluginsService, each with its own class loader,
 * so k-NN can extend lang-painless and neural-search can extend k-NN as in the real distribution.
 *
 * <p>Any failure while building or starting the node is printed to stderr and ends the process
 * with exit code 1, so the wrapper script never waits on a half-started JVM.
 */
public final class LocalNode {

    private LocalNode() {}

    public static void main(String[] args) {
        final Node node;
        try {
            Settings.Builder builder = Settings.builder();
            for (String arg : args) {
                int eq = arg.indexOf('=');
                if (!arg.startsWith("-E") || eq < 3) {
                    System.err.println("usage: LocalNode -Epath.home=DIR [-Ekey=value ...]; bad argument: " + arg);
                    System.exit(2);
                }
                builder.put(arg.substring(2, eq), arg.substring(eq + 1));
            }
            Settings settings = builder.build();
            String home = settings.get("path.home");
            if (home == null) {
                System.err.println("LocalNode: -Epath.home=DIR is required");
                System.exit(2);
            }
            Path config = Paths.get(home).resolve("config");
            Environment env = InternalSettingsPreparer.prepareEnvironment(
                settings, Collections.emptyMap(), config, () -> "chunkwise-local");
            LogConfigurator.registerErrorListener();
            LogConfigurator.setNodeName(Node.NODE_NAME_SETTING.get(env.settings()));
            LogConfigurator.configure(env);
            node = new Node(env);
        } catch (Throwable t) {
            fail("could not build the node", t);
            return;
        }

        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
                System.out.println("LocalNode: closed");
            } catch (Throwable t) {
                t.printStackTrace();
            } finally {
                // Run with -Dlog4j.shutdownHookEnabled=false so the node can log while closing.
                LogManager.shutdown();
                closed.countDown();
            }
        }, "chunkwise-opensearch-shutdown"));

        try {
            node.start();
        } catch (Throwable t) {
            fail("could not start the node", t);
            return;
        }
        System.out.println("LocalNode: started");

        // The node's own threads do the work; this thread only keeps the JVM alive.
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void fail(String what, Throwable t) {
        System.err.println("LocalNode: FATAL: " + what + ": " + t);
        t.printStackTrace();
        System.err.flush();
        // halt, not exit: skip the shutdown hook so a half-built node cannot block the exit.
        Runtime.getRuntime().halt(1);
    }
}
