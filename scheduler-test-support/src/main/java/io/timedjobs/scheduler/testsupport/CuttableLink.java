package io.timedjobs.scheduler.testsupport;

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
 * For tests, thread-safe: a loopback TCP link to a database server that can be cut the way a
 * network fault cuts it. While cut, new connections are accepted but nothing flows either way,
 * so that a pool's connection attempt and a statement in progress both hang rather than fail
 * fast; once restored, what was held flows on. Point a JDBC URL at {@link #port()}.
 */
public final class CuttableLink implements AutoCloseable {

    private final ServerSocket listener;
    private final int serverPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService pumps = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "test-cuttable-link");
        thread.setDaemon(true);
        return thread;
    });

    /** Guards {@link #cut}; the pumps wait on it while the link is cut. */
    private final Object state = new Object();

    private boolean cut;
    private volatile boolean closed;

    /** Opens the link to a server listening on the loopback address at {@code serverPort}. */
    public CuttableLink(int serverPort) throws IOException {
        this.serverPort = serverPort;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        pumps.execute(this::acceptAll);
    }

    /** Returns the local port that leads to the server. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Stops every byte, both ways, on every connection, old and new, until {@link #restore()}. */
    public void cut() {
        synchronized (state) {
            cut = true;
        }
    }

    /** Lets the bytes flow again. */
    public void restore() {
        synchronized (state) {
            cut = false;
            state.notifyAll();
        }
    }

    private void acceptAll() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                sockets.add(client);
                sockets.add(server);
                pumps.execute(() -> copy(client, server));
                pumps.execute(() -> copy(server, client));
            } catch (IOException ex) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                waitWhileCut();
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException ex) {
            // a side closed, or the link is closing: both sockets go
        } finally {
            quietlyClose(from);
            quietlyClose(to);
        }
    }

    private void waitWhileCut() throws InterruptedException {
        synchronized (state) {
            while (cut && !closed) {
                state.wait();
            }
        }
    }

    private static void quietlyClose(Socket socket) {
        try {
            socket.close();
        } catch (IOException ex) {
            // it goes anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        restore();
        listener.close();
        sockets.forEach(CuttableLink::quietlyClose);
        pumps.shutdownNow();
    }
}
