/** The push service's own dead-letter sink: the Pub/Sub dead-letter topic. */
package dev.pubsubclickhouse.function.sinks;
