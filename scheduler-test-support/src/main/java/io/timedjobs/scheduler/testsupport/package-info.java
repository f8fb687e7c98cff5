/** What the project's own tests share; not part of any published artifact. */
@NullMarked
package io.timedjobs.scheduler.testsupport;

import org.jspecify.annotations.NullMarked;
