/**
 * The Google providers' schema as data (7.x, derived from @pulumi/gcp's declarations) and the check
 * of terraform/ against it: resource and data source types, arguments, nested and dynamic blocks,
 * lifecycle paths, module calls and references.
 */
package dev.pubsubclickhouse.infra.schema;
