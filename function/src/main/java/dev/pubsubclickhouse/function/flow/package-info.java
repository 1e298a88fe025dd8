/**
 * Flow control across the fleet: every instance watches what ClickHouse says about the target table
 * (parts, merges, delayed and refused INSERTs, new parts per second) and, before ClickHouse would
 * refuse, makes its batches larger, then answers 429 so that Pub/Sub backs off.
 */
package dev.pubsubclickhouse.function.flow;
