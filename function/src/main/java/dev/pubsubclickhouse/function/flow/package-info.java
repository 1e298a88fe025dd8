/**
 * Flow control across the fleet: every instance watches what ClickHouse says about each table it
 * writes (parts, merges, delayed and refused INSERTs, new parts per second) and, before ClickHouse
 * would refuse, makes its batches larger, then answers 429 for that table's messages so that
 * Pub/Sub backs off.
 */
package dev.pubsubclickhouse.function.flow;
