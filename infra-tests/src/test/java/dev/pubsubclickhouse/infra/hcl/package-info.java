/**
 * A read-only model of Terraform files as written: blocks, attributes and expressions (references,
 * literals, function calls), built from hcl4j's lexer without evaluating anything.
 */
package dev.pubsubclickhouse.infra.hcl;
