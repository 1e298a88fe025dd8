/**
 * A local Pub/Sub push stand-in: sends messages, retries nacks with backoff, dead-letters after N
 * attempts.
 */
package dev.pubsubclickhouse.driver;
