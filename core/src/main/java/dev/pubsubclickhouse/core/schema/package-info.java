/** Table names and schemas as ClickHouse describes them in system.columns. */
package dev.pubsubclickhouse.core.schema;
