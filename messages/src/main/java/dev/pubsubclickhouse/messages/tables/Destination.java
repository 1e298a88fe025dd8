package dev.pubsubclickhouse.messages.tables;

import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;

/** A table messages are written to: its schema as last read, and the writer of its batches. */
public record Destination(TargetTable table, TableWriter writer) {}
