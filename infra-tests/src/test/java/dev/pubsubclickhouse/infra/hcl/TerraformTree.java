package dev.pubsubclickhouse.infra.hcl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Every Terraform module under a directory (each directory holding *.tf files is one). */
public final class TerraformTree {
  private final Path root;
  private final Map<Path, TerraformConfig> modules;

  private TerraformTree(Path root, Map<Path, TerraformConfig> modules) {
    this.root = root;
    this.modules = modules;
  }

  /** Reads every module under {@code root}, skipping Terraform's own .terraform directories. */
  public static TerraformTree load(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      List<Path> dirs =
          paths
              .filter(p -> p.toString().endsWith(".tf") && Files.isRegularFile(p))
              .filter(p -> !root.relativize(p).toString().contains(".terraform"))
              .map(Path::getParent)
              .distinct()
              .sorted()
              .collect(Collectors.toList());
      Map<Path, TerraformConfig> modules = new LinkedHashMap<>();
      for (Path dir : dirs) {
        modules.put(root.relativize(dir), TerraformConfig.load(dir));
      }
      return new TerraformTree(root, modules);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path root() {
    return root;
  }

  /** Modules by directory, relative to the root. */
  public Map<Path, TerraformConfig> modules() {
    return modules;
  }

  public TerraformConfig module(String relativeDir) {
    return findModule(Path.of(relativeDir))
        .orElseThrow(() -> new AssertionError("no module " + relativeDir + " under " + root));
  }

  public Optional<TerraformConfig> findModule(Path relativeDir) {
    return Optional.ofNullable(modules.get(relativeDir.normalize()));
  }

  /** The same tree with one file of one module replaced, e.g. by a copy with a name changed. */
  public TerraformTree withFile(Path relativeDir, HclFile replacement) {
    Map<Path, TerraformConfig> changed = new LinkedHashMap<>(modules);
    TerraformConfig module = modules.get(relativeDir);
    List<HclFile> files = new ArrayList<>();
    for (HclFile file : module.files()) {
      files.add(file.name().equals(replacement.name()) ? replacement : file);
    }
    changed.put(relativeDir, TerraformConfig.of(module.dir(), files));
    return new TerraformTree(root, changed);
  }
}
