package io.timedjobs.scheduler.jdbc.database;

/**
 * Immutable. Thrown by {@link ClusterInstance#register()} when another live process already uses this
 * instance's name: two processes under one name would renew each other's claims and leases, so that
 * the claims of one that dies never come back. Start-up fails with it.
 */
public final class DuplicateInstanceNameException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The configuration key of the instance name, named in the message. */
    public static final String KEY = "timed-jobs.cluster.instance-name";

    private final String instanceName;

    DuplicateInstanceNameException(String instanceName, String detail) {
        super("Another running process already uses the instance name '" + instanceName + "' (" + KEY + "): " + detail
                + ". Give each instance its own " + KEY + ", or leave it unset for a unique default.");
        this.instanceName = instanceName;
    }

    /** Returns the name in use twice. */
    public String instanceName() {
        return instanceName;
    }
}
