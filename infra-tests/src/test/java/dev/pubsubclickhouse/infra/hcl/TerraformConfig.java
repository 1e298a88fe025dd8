package dev.pubsubclickhouse.infra.hcl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** One Terraform module: every {@code *.tf} file of one directory (Terraform reads no deeper). */
public final class TerraformConfig {
  private final Path dir;
  private final List<HclFile> files;

  private TerraformConfig(Path dir, List<HclFile> files) {
    this.dir = dir;
    this.files = List.copyOf(files);
  }

  /** Reads {@code dir/*.tf}. */
  public static TerraformConfig load(Path dir) {
    try (Stream<Path> paths = Files.list(dir)) {
      List<HclFile> files =
          paths
              .filter(p -> p.toString().endsWith(".tf") && Files.isRegularFile(p))
              .sorted()
              .map(p -> HclFile.read(p, p.getFileName().toString()))
              .collect(Collectors.toList());
      return of(dir, files);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A module made of files already read, e.g. a copy with one name changed. */
  public static TerraformConfig of(Path dir, List<HclFile> files) {
    if (files.isEmpty()) {
      throw new IllegalStateException("no .tf files in " + dir);
    }
    for (HclFile file : files) {
      if (!file.attributes().isEmpty()) {
        throw new IllegalStateException(
            dir.resolve(file.name()) + ": top-level attributes " + file.attributes().keySet());
      }
    }
    return new TerraformConfig(dir, files);
  }

  /** The module's directory. */
  public Path dir() {
    return dir;
  }

  public List<HclFile> files() {
    return files;
  }

  public HclFile file(String name) {
    return files.stream()
        .filter(f -> f.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no file " + name));
  }

  public List<HclBlock> blocks() {
    return files.stream().flatMap(f -> f.blocks().stream()).collect(Collectors.toList());
  }

  public List<HclBlock> blocks(String type) {
    return blocks().stream().filter(b -> b.type().equals(type)).collect(Collectors.toList());
  }

  public List<HclBlock> resources(String resourceType) {
    return blocks("resource").stream()
        .filter(b -> b.label(0).equals(resourceType))
        .collect(Collectors.toList());
  }

  /**
   * Resources of {@code resourceType} whose {@code attribute} references exactly {@code reference},
   * e.g. the grants whose member is one account.
   */
  public List<HclBlock> resourcesReferencing(
      String resourceType, String attribute, String reference) {
    return resources(resourceType).stream()
        .filter(b -> b.expr(attribute).references().equals(List.of(reference)))
        .collect(Collectors.toList());
  }

  /** Resources whose type matches, e.g. every {@code google_*_iam_member}. */
  public List<HclBlock> resourcesMatching(String typeRegex) {
    return blocks("resource").stream()
        .filter(b -> b.label(0).matches(typeRegex))
        .collect(Collectors.toList());
  }

  public HclBlock resource(String resourceType, String name) {
    return blocks("resource").stream()
        .filter(b -> b.labels().equals(List.of(resourceType, name)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no resource " + resourceType + "." + name));
  }

  public List<HclBlock> variables() {
    return blocks("variable");
  }

  public HclBlock variable(String name) {
    return variables().stream()
        .filter(b -> b.label(0).equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no variable " + name));
  }

  /** The literal default of variable {@code name}, if it has one. */
  public Optional<HclExpression.Literal> variableDefault(String name) {
    return variable(name).attribute("default").flatMap(d -> d.value().literal());
  }

  public List<HclBlock> outputs() {
    return blocks("output");
  }

  /** The expression of {@code local.name}, from whichever locals block sets it. */
  public HclExpression local(String name) {
    return findLocal(name).orElseThrow(() -> new AssertionError("no local " + name));
  }

  public Optional<HclExpression> findLocal(String name) {
    return blocks("locals").stream()
        .map(b -> b.attribute(name))
        .flatMap(Optional::stream)
        .map(HclAttribute::value)
        .findFirst();
  }

  /** Every attribute of every block in every file, with the blocks it sits in. */
  public List<HclBlock.Nested> nestedAttributes() {
    return blocks().stream()
        .flatMap(b -> b.nestedAttributes().stream())
        .collect(Collectors.toList());
  }
}
