/** Where rows that cannot be written go: the ClickHouse error table. */
package dev.pubsubclickhouse.core.errors;
