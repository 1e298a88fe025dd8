package dev.pubsubclickhouse.infra;

import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.hcl.TerraformTree;

/** terraform/ as read once: the modules and the examples. */
final class TerraformFiles {
  private TerraformFiles() {}

  static final TerraformTree TREE = TerraformTree.load(RepoFiles.path("terraform"));

  /** The module every example calls: all the resources. */
  static final TerraformConfig MODULE = TREE.module("modules/pubsub-clickhouse");

  static final String MODULE_DIR = "terraform/modules/pubsub-clickhouse";

  /** The pull-mode service on GKE Autopilot Arm pods. */
  static final TerraformConfig GKE_MODULE = TREE.module("modules/pubsub-clickhouse-gke");
}
