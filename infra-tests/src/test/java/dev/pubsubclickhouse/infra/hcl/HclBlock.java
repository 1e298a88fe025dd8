package dev.pubsubclickhouse.infra.hcl;

import dev.pubsubclickhouse.infra.hcl.Expr.Span;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A block as written: its type ({@code resource}, {@code dynamic}, {@code push_config}), its
 * labels, its attributes and its nested blocks. Lookups that a test relies on fail with the block's
 * file and line rather than returning null.
 */
public final class HclBlock {
  /** What a block (or a file) holds: attributes by name, and nested blocks in order. */
  record Body(Map<String, HclAttribute> attributes, List<HclBlock> blocks) {}

  private final String file;
  private final int line;
  private final String type;
  private final Span typeSpan;
  private final List<String> labels;
  private final List<Span> labelSpans;
  private final Map<String, HclAttribute> attributes;
  private final List<HclBlock> blocks;

  HclBlock(
      String file,
      int line,
      String type,
      Span typeSpan,
      List<String> labels,
      List<Span> labelSpans,
      Body body) {
    this.file = file;
    this.line = line;
    this.type = type;
    this.typeSpan = typeSpan;
    this.labels = List.copyOf(labels);
    this.labelSpans = List.copyOf(labelSpans);
    this.attributes = new LinkedHashMap<>(body.attributes());
    this.blocks = List.copyOf(body.blocks());
  }

  public String type() {
    return type;
  }

  public List<String> labels() {
    return labels;
  }

  /** The label at {@code index}, e.g. label(1) of {@code resource "a" "b"} is "b". */
  public String label(int index) {
    if (index >= labels.size()) {
      throw new AssertionError(describe() + " has no label " + index);
    }
    return labels.get(index);
  }

  /** Where the block's type is written, e.g. {@code resource} or {@code push_config}. */
  public Span typeSpan() {
    return typeSpan;
  }

  /** Where each label is written, quotes included. */
  public List<Span> labelSpans() {
    return labelSpans;
  }

  public String file() {
    return file;
  }

  public int line() {
    return line;
  }

  public String location() {
    return file + ":" + line;
  }

  /** e.g. {@code resource "google_pubsub_subscription" "push" (pubsub.tf:36)}. */
  public String describe() {
    String quoted = labels.stream().map(l -> '"' + l + '"').collect(Collectors.joining(" "));
    return (type + " " + quoted).trim() + " (" + location() + ")";
  }

  public Map<String, HclAttribute> attributes() {
    return attributes;
  }

  public Optional<HclAttribute> attribute(String name) {
    return Optional.ofNullable(attributes.get(name));
  }

  /** The value of attribute {@code name}; fails when the block does not set it. */
  public HclExpression expr(String name) {
    return attribute(name)
        .orElseThrow(() -> new AssertionError(describe() + " sets no attribute " + name))
        .value();
  }

  public List<HclBlock> blocks() {
    return blocks;
  }

  public List<HclBlock> blocks(String blockType) {
    return blocks.stream().filter(b -> b.type.equals(blockType)).collect(Collectors.toList());
  }

  /** The one nested block of {@code blockType}; fails when there is none or more than one. */
  public HclBlock block(String blockType) {
    List<HclBlock> found = blocks(blockType);
    if (found.size() != 1) {
      throw new AssertionError(
          describe() + " has " + found.size() + " " + blockType + " blocks, expected 1");
    }
    return found.get(0);
  }

  /** {@code dynamic "name" { ... }}; fails when absent. */
  public HclBlock dynamic(String name) {
    return blocks("dynamic").stream()
        .filter(b -> b.labels.equals(List.of(name)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(describe() + " has no dynamic \"" + name + "\""));
  }

  /** This block and every block nested in it, depth first. */
  public Stream<HclBlock> selfAndDescendants() {
    return Stream.concat(Stream.of(this), blocks.stream().flatMap(HclBlock::selfAndDescendants));
  }

  /** Every attribute of this block and its nested blocks, each with the chain of blocks above. */
  public List<Nested> nestedAttributes() {
    List<Nested> found = new ArrayList<>();
    collect(new ArrayList<>(), found);
    return found;
  }

  /** An attribute and the blocks it sits in, outermost first (the last one holds it). */
  public record Nested(List<HclBlock> path, HclAttribute attribute) {
    public HclBlock holder() {
      return path.get(path.size() - 1);
    }
  }

  private void collect(List<HclBlock> path, List<Nested> found) {
    List<HclBlock> here = new ArrayList<>(path);
    here.add(this);
    for (HclAttribute attribute : attributes.values()) {
      found.add(new Nested(List.copyOf(here), attribute));
    }
    for (HclBlock block : blocks) {
      block.collect(here, found);
    }
  }

  @Override
  public String toString() {
    return describe();
  }
}
