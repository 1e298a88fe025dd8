package dev.pubsubclickhouse.infra;

import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.hcl.TerraformTree;

/** terraform/ as read once: the module and the examples. */
final class TerraformFiles {
  private TerraformFiles() {}

  static final TerraformTree TREE = TerraformTree.load(RepoFiles.path("terraform"));

  /** The module every example calls: all the resources. */
  static final TerraformConfig MODULE = TREE.module("modules/pubsub-clickhouse");

  static final String MODULE_DIR = "terraform/modules/pubsub-clickhouse";
}
