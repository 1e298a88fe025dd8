/** Where messages go that cannot reach the target table: error table and dead-letter topic. */
package dev.pubsubclickhouse.function.sinks;
