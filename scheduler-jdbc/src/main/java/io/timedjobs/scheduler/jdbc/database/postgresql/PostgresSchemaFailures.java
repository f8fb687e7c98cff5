package io.timedjobs.scheduler.jdbc.database.postgresql;

import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;

/** Stateless; any thread. The rights PostgreSQL's schema statements need, as it names them. */
final class PostgresSchemaFailures implements SchemaFailures {

    @Override
    public String rightFor(Change change) {
        return change == Change.CREATE_TABLE
                ? "CREATE on the schema"
                : "ownership of the table (PostgreSQL has no ALTER or INDEX right: the table's owner alters it)";
    }
}
