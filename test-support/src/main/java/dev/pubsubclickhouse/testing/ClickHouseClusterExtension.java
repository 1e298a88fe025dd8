package dev.pubsubclickhouse.testing;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Gives a test class a {@link LocalCluster} of its own (a constructor or method parameter), started
 * once for the class under {@code target/test-clusters/<class>-<time>} and stopped when the class
 * is done, whether its tests passed or not. When every test passed its directory is deleted; when
 * one failed, the directory with every server's {@code server.log} is kept and its path printed.
 */
public final class ClickHouseClusterExtension
    extends ClassScopedExtension<ClickHouseClusterExtension.Running> implements TestWatcher {
  public ClickHouseClusterExtension() {
    super(Running.class, LocalCluster.class);
  }

  @Override
  Running create(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    ClickHouseClusterTest settings = testClass.getAnnotation(ClickHouseClusterTest.class);
    int shards = settings == null ? 2 : settings.shards();
    Path directory =
        LocalClickHouse.repositoryRoot()
            .resolve("target/test-clusters")
            .resolve(testClass.getSimpleName() + "-" + System.currentTimeMillis());
    return new Running(LocalCluster.start(directory, shards));
  }

  @Override
  Object parameter(Running running) {
    return running.cluster;
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    holder(context).failed = true;
  }

  /** The cluster of one test class; closing the class's store stops it. */
  static final class Running implements ExtensionContext.Store.CloseableResource {
    final LocalCluster cluster;
    volatile boolean failed;

    Running(LocalCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public void close() {
      try {
        cluster.stop();
      } finally {
        if (failed) {
          System.err.println(
              "ClickHouse cluster logs kept in " + cluster.directory() + "/shard-*/server.log");
        } else {
          Directories.delete(cluster.directory());
        }
      }
    }
  }
}
