/**
 * A read-only model of Terraform files as written: blocks, attributes and expressions (references,
 * literals, function calls, templates), read by this module's own HCL reader without evaluating
 * anything.
 */
package dev.pubsubclickhouse.infra.hcl;
