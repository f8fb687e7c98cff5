package io.timedjobs.scheduler.jdbc.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Test fixture; any thread. A loopback TCP forwarder in front of a database whose link can be cut
 * as a network fault cuts it: while cut, connections are still accepted but no byte goes either
 * way, so that opening a connection and every statement really hang (nothing is refused, nothing
 * fails fast). When the link is back, what was held flows again.
 */
final class CuttableForwarder implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "test-forwarder");
        thread.setDaemon(true);
        return thread;
    });

    /** Guards {@link #cut}; pumps wait on it while the link is cut. */
    private final Object link = new Object();

    private boolean cut;
    private volatile boolean closed;

    CuttableForwarder(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(this::accept);
    }

    /** Returns the port to connect to instead of the target's. */
    int port() {
        return server.getLocalPort();
    }

    void cut() {
        synchronized (link) {
            cut = true;
        }
    }

    void restore() {
        synchronized (link) {
            cut = false;
            link.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream));
                threads.execute(() -> pump(upstream, client));
            } catch (IOException ex) {
                if (closed) {
                    return;
                }
            }
        }
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
            // one side closed or the forwarder stops: close both
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitLink() throws InterruptedException {
        synchronized (link) {
            while (cut && !closed) {
                link.wait();
            }
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
    public void close() throws IOException {
        closed = true;
        restore();
        server.close();
        sockets.forEach(CuttableForwarder::closeQuietly);
        threads.shutdownNow();
    }
}
