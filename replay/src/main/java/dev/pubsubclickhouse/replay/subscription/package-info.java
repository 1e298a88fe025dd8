/**
 * {@code replay.jar subscription}: dead letters from a dead-letter subscription back to the source
 * topic, with their data, attributes and ordering key as published; each is acknowledged only once
 * its copy is published.
 */
package dev.pubsubclickhouse.replay.subscription;
