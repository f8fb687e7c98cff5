/**
 * The application under test: jobs, durable reminders and reactive jobs, as a user writes them;
 * started by the acceptance tests in JVMs of their own.
 */
package io.timedjobs.acceptance.app;
