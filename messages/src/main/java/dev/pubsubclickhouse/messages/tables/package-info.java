/**
 * Which table a message goes to (the default table, or the one its attribute names from an
 * allow-list), each table's schema and writer, read when a message first names it, and how a
 * table's columns follow the messages (schema evolution, the column for unknown fields), and the
 * columns that take their value from a path, the message data or an attribute (COLUMN_MAPPING).
 */
package dev.pubsubclickhouse.messages.tables;
