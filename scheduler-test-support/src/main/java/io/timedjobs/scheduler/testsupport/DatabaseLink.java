package io.timedjobs.scheduler.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * For tests; any thread. A loopback TCP forwarder between the code under test and its database
 * server (shared with other tests, which keep their own link to it), cut as an outage cuts it, in
 * one of two ways ({@link Outage}); {@link #restore()} ends either. Point a JDBC URL at {@link
 * #port()}.
 */
public final class DatabaseLink implements AutoCloseable {

    /** How the link fails. */
    public enum Outage {
        /** The server is gone: every connection closed, new ones refused (nothing listens). */
        REFUSED,
        /**
         * The network is gone: connections stay open and new ones are accepted, but no byte goes
         * either way, so connecting and every statement hang until a timeout ends them.
         */
        SILENT
    }

    private final int port;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "database-link");
        thread.setDaemon(true);
        return thread;
    });

    /** The listening socket while the link is up; null while cut. Guarded by this. */
    private @Nullable ServerSocket server;

    /** Whether no byte may pass. Guarded by this; pumps wait on this while it is set. */
    private boolean silent;

    /** Opens a link to a server listening on the loopback address at {@code targetPort}. */
    public DatabaseLink(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = listen(0);
        this.port = server.getLocalPort();
        accept(server);
    }

    /** Returns the port the applications connect to instead of the database's. */
    public int port() {
        return port;
    }

    /** Cuts the link as {@code outage} says, until {@link #restore()}. */
    public synchronized void cut(Outage outage) throws IOException {
        if (outage == Outage.SILENT) {
            silent = true;
            return;
        }
        if (server != null) {
            server.close();
            server = null;
        }
        sockets.forEach(DatabaseLink::closeQuietly);
        sockets.clear();
    }

    /** Lets bytes pass again, and listens again on the same port. */
    public synchronized void restore() throws IOException {
        silent = false;
        notifyAll();
        if (server == null) {
            server = listen(port);
            accept(server);
        }
    }

    private synchronized void awaitLink() throws InterruptedException {
        while (silent) {
            wait();
        }
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    private void accept(ServerSocket listening) {
        threads.execute(() -> {
            while (!listening.isClosed()) {
                try {
                    Socket client = listening.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    sockets.add(client);
                    sockets.add(upstream);
                    threads.execute(() -> pump(client, upstream));
                    threads.execute(() -> pump(upstream, client));
                } catch (SocketException closed) {
                    return;
                } catch (IOException ex) {
                    // one connection failed; keep listening
                }
            }
        });
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                awaitLink();
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException ex) {
            // one side closed, or the link was cut, or the link is closing: close both
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ex) {
            // closing anyway
        }
    }

    @Override
    public synchronized void close() throws IOException {
        restore();
        cut(Outage.REFUSED);
        threads.shutdownNow();
    }
}
