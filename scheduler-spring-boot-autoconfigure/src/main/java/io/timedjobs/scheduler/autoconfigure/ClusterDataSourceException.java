package io.timedjobs.scheduler.autoconfigure;

/**
 * Immutable; thrown while the context starts and read by {@link ClusterDataSourceFailureAnalyzer},
 * which prints its {@link #action()} under its message. Start-up refused because the cluster has
 * no {@code DataSource} it can use: none at all, or several and none marked.
 */
public final class ClusterDataSourceException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    ClusterDataSourceException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What the application should change, in the words of a failure analysis's "Action". */
    public String action() {
        return action;
    }
}
