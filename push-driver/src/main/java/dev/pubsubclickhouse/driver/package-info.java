/**
 * A local Pub/Sub push stand-in: sends messages, retries nacks with backoff, dead-letters after N
 * attempts. Only for what gcloud's Pub/Sub emulator cannot do: load, OIDC tokens, delivery
 * attempts.
 */
package dev.pubsubclickhouse.driver;
