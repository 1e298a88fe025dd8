package dev.pubsubclickhouse.infra.hcl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One parsed HCL file: its top-level blocks (.tf) or attributes (.tfvars). */
public final class HclFile {
  private final String name;
  private final String source;
  private final List<HclBlock> blocks;
  private final Map<String, HclAttribute> attributes;

  private HclFile(String name, String source, HclBlock.Body body) {
    this.name = name;
    this.source = source;
    this.blocks = List.copyOf(body.blocks());
    this.attributes = Map.copyOf(body.attributes());
  }

  public static HclFile read(Path path, String displayName) {
    try {
      return parse(displayName, Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses {@code source}.
   *
   * @throws IllegalStateException naming the file and line of the first thing it cannot read
   */
  public static HclFile parse(String name, String source) {
    return new HclFile(name, source, HclParser.parse(name, source));
  }

  public String name() {
    return name;
  }

  /** The text as read, for checks that must also cover comments. */
  public String source() {
    return source;
  }

  public List<HclBlock> blocks() {
    return blocks;
  }

  public Map<String, HclAttribute> attributes() {
    return attributes;
  }
}
