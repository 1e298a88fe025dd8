/**
 * The Google providers' schema as data (derived from cdktf's generated bindings) and the check of
 * terraform/ against it: resource and data source types, arguments, nested and dynamic blocks,
 * lifecycle paths, module calls and references.
 */
package dev.pubsubclickhouse.infra.schema;
