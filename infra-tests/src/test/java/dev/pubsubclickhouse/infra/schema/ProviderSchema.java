package dev.pubsubclickhouse.infra.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a Terraform provider accepts: for each resource, data source and the provider block, its
 * arguments, nested blocks and read-only attributes. Read from
 * src/test/resources/terraform-schema/: the Google providers' 7.x files that
 * infra-tests/provider-schema/generate derives from
 *
 * @pulumi/gcp's declarations, and the kubernetes provider's file that
 *     scripts/terraform-provider-schema derives from @cdktf/provider-kubernetes.
 */
public final class ProviderSchema {
  /** One block's schema: what may be set in it, what nests in it, what can only be read. */
  public record Node(Set<String> arguments, Map<String, Node> blocks, Set<String> readOnly) {
    /** Whether {@code name} can be referenced: an argument, a block or a read-only attribute. */
    public boolean readable(String name) {
      return arguments.contains(name) || blocks.containsKey(name) || readOnly.contains(name);
    }
  }

  private final String name;
  private final Map<String, Node> resources;
  private final Map<String, Node> dataSources;
  private final Node provider;

  private ProviderSchema(
      String name, Map<String, Node> resources, Map<String, Node> dataSources, Node provider) {
    this.name = name;
    this.resources = resources;
    this.dataSources = dataSources;
    this.provider = provider;
  }

  /** hashicorp/google. */
  public static ProviderSchema google() {
    return read("google", null);
  }

  /** hashicorp/google-beta: google's entries, replaced by the ones that differ in the beta. */
  public static ProviderSchema googleBeta() {
    return read("google-beta", google());
  }

  /** hashicorp/kubernetes. */
  public static ProviderSchema kubernetes() {
    return read("kubernetes", null);
  }

  public String name() {
    return name;
  }

  public Optional<Node> resource(String type) {
    return Optional.ofNullable(resources.get(type));
  }

  public Optional<Node> dataSource(String type) {
    return Optional.ofNullable(dataSources.get(type));
  }

  public Node provider() {
    return provider;
  }

  private static ProviderSchema read(String name, ProviderSchema base) {
    Map<String, Node> resources = new HashMap<>(base == null ? Map.of() : base.resources);
    Map<String, Node> dataSources = new HashMap<>(base == null ? Map.of() : base.dataSources);
    Node provider = null;
    String resource = "/terraform-schema/" + name + ".txt";
    for (String line : text(resource).split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(": ");
      String[] head = line.substring(0, colon).split(" ");
      Node node = new ItemReader(line, colon + 2).body();
      switch (head[0]) {
        case "resource" -> resources.put(head[1], node);
        case "data" -> dataSources.put(head[1], node);
        case "provider" -> provider = node;
        default -> throw new IllegalStateException(resource + ": unknown entry " + head[0]);
      }
    }
    if (provider == null || resources.isEmpty()) {
      throw new IllegalStateException(resource + " names no provider or no resource");
    }
    return new ProviderSchema(name, Map.copyOf(resources), Map.copyOf(dataSources), provider);
  }

  private static String text(String resource) {
    try (InputStream in = ProviderSchema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no " + resource + " on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code a b c{d e{f}} =g}: arguments, nested blocks and read-only attributes. */
  private static final class ItemReader {
    private final String line;
    private int pos;

    ItemReader(String line, int pos) {
      this.line = line;
      this.pos = pos;
    }

    Node body() {
      Set<String> arguments = new LinkedHashSet<>();
      Map<String, Node> blocks = new LinkedHashMap<>();
      Set<String> readOnly = new LinkedHashSet<>();
      while (pos < line.length() && line.charAt(pos) != '}') {
        if (line.charAt(pos) == ' ') {
          pos++;
          continue;
        }
        boolean read = line.charAt(pos) == '=';
        if (read) {
          pos++;
        }
        int start = pos;
        while (pos < line.length() && " {}".indexOf(line.charAt(pos)) < 0) {
          pos++;
        }
        String item = line.substring(start, pos);
        if (pos < line.length() && line.charAt(pos) == '{') {
          pos++;
          blocks.put(item, body());
          pos++;
        } else if (read) {
          readOnly.add(item);
        } else {
          arguments.add(item);
        }
      }
      return new Node(Set.copyOf(arguments), Map.copyOf(blocks), Set.copyOf(readOnly));
    }
  }
}
