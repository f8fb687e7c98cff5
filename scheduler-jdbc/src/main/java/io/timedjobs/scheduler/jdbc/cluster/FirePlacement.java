package io.timedjobs.scheduler.jdbc.cluster;

/**
 * Immutable. Which instance tries a clustered job's fire first, where instances hear of the fires
 * the others record (PostgreSQL): it sends the statement that records the fire, and the others try
 * only a fire they did not hear recorded, a moment later. Whoever records a fire runs it, whichever
 * placement: this only decides who tries first, so how the runs spread and how many statements a
 * fire costs. See docs/several-instances.md, "Who tries a fire".
 */
public enum FirePlacement {

    /**
     * Chosen anew for each fire, evenly among the live instances (rendezvous hashing of the job,
     * the fire's instant and the instance's name); the others follow in an order of the same hash,
     * each a backup step after the one before. The default.
     */
    SPREAD,

    /**
     * The instance that recorded the job's last fire; the others wait one backup step. A job then
     * runs wherever it ran last, until that instance stops or is late.
     */
    STICKY
}
