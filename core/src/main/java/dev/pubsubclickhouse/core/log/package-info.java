/** Structured (JSON) log lines shared by the service and the job. */
package dev.pubsubclickhouse.core.log;
