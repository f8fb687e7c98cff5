/** Internals of the clustered jobs; not API, may change in any release. */
@NullMarked
package io.timedjobs.scheduler.jdbc.internal;

import org.jspecify.annotations.NullMarked;
