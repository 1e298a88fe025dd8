/**
 * The pull edge: a streaming-pull subscriber that hands each message to the same ingestion path as
 * a push request and acks or nacks it by the outcome. Nothing below the edge differs from push.
 */
package dev.pubsubclickhouse.function.pull;
