package dev.pubsubclickhouse.infra.hcl;

import com.bertramlabs.plugins.hcl4j.HCLParserException;
import com.bertramlabs.plugins.hcl4j.HclSyntax;
import com.bertramlabs.plugins.hcl4j.symbols.HCLAttribute;
import com.bertramlabs.plugins.hcl4j.symbols.HCLBlock;
import com.bertramlabs.plugins.hcl4j.symbols.Symbol;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** One parsed HCL file: its top-level blocks (.tf) or attributes (.tfvars). */
public final class HclFile {
  /** A top-level block header at column 0: {@code resource "a" "b" {}, {@code locals {}. */
  private static final Pattern TOP_LEVEL_HEADER =
      Pattern.compile(
          "^[A-Za-z_][A-Za-z0-9_-]*(\\s+(\"[^\"]*\"|[A-Za-z_][A-Za-z0-9_-]*))*\\s*\\{\\s*$",
          Pattern.MULTILINE);

  private final String name;
  private final String source;
  private final List<HclBlock> blocks;
  private final Map<String, HclAttribute> attributes;

  private HclFile(
      String name, String source, List<HclBlock> blocks, Map<String, HclAttribute> attributes) {
    this.name = name;
    this.source = source;
    this.blocks = List.copyOf(blocks);
    this.attributes = attributes;
  }

  public static HclFile read(Path path, String displayName) {
    try {
      return parse(displayName, Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses {@code source}. Fails on a lexical error, and when the lexer's blocks do not match the
   * top-level block headers of the text: hcl4j's lexer silently drops a block that is never closed,
   * and a test must not pass because a block went missing.
   */
  public static HclFile parse(String name, String source) {
    List<Symbol> symbols;
    try {
      symbols = HclSyntax.parse(source);
    } catch (HCLParserException | IOException | RuntimeException e) {
      throw new IllegalStateException(name + ": not valid HCL: " + e.getMessage(), e);
    }
    List<HclBlock> blocks = new ArrayList<>();
    Map<String, HclAttribute> attributes = new LinkedHashMap<>();
    for (Symbol symbol : symbols) {
      if (symbol instanceof HCLBlock block) {
        blocks.add(toBlock(name, block));
      } else if (symbol instanceof HCLAttribute attribute) {
        attributes.put(attribute.getName(), toAttribute(name, attribute));
      } else {
        throw new IllegalStateException(
            name + ":" + line(symbol) + ": unexpected top-level " + symbol.getSymbolName());
      }
    }
    long headers = TOP_LEVEL_HEADER.matcher(source).results().count();
    if (headers != blocks.size()) {
      throw new IllegalStateException(
          name
              + ": "
              + headers
              + " top-level block headers in the text but "
              + blocks.size()
              + " parsed blocks (an unclosed brace?)");
    }
    return new HclFile(name, source, blocks, attributes);
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

  private static HclBlock toBlock(String file, HCLBlock block) {
    List<String> names = block.blockNames;
    Map<String, HclAttribute> attributes = new LinkedHashMap<>();
    List<HclBlock> nested = new ArrayList<>();
    for (Symbol child : block.getChildren()) {
      if (child instanceof HCLBlock inner) {
        nested.add(toBlock(file, inner));
      } else if (child instanceof HCLAttribute attribute) {
        HclAttribute converted = toAttribute(file, attribute);
        if (attributes.put(converted.name(), converted) != null) {
          throw new IllegalStateException(
              converted.location() + ": attribute " + converted.name() + " set twice");
        }
      } else {
        throw new IllegalStateException(
            file + ":" + line(child) + ": unexpected " + child.getSymbolName() + " in a block");
      }
    }
    return new HclBlock(
        file, line(block), names.get(0), names.subList(1, names.size()), attributes, nested);
  }

  private static HclAttribute toAttribute(String file, HCLAttribute attribute) {
    return new HclAttribute(
        attribute.getName(), file, line(attribute), new HclExpression(attribute.getChildren()));
  }

  /** hcl4j counts lines from 0. */
  private static int line(Symbol symbol) {
    return symbol.getLine() == null ? 0 : symbol.getLine() + 1;
  }
}
