package dev.pubsubclickhouse.infra.hcl;

import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.ComputedObject;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.ComputedTuple;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.Function;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.Operator;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.PrimitiveType;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.StringInterpolatedExpression;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.Variable;
import com.bertramlabs.plugins.hcl4j.RuntimeSymbols.VariableTree;
import com.bertramlabs.plugins.hcl4j.symbols.HCLArray;
import com.bertramlabs.plugins.hcl4j.symbols.HCLAttribute;
import com.bertramlabs.plugins.hcl4j.symbols.HCLBlock;
import com.bertramlabs.plugins.hcl4j.symbols.HCLValue;
import com.bertramlabs.plugins.hcl4j.symbols.Symbol;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The value of an attribute as written: literals, references ({@code var.x}, {@code
 * google_pubsub_topic.dead_letter.id}), function calls, operators and object or tuple constructors.
 * Nothing is evaluated.
 */
public final class HclExpression {
  private final List<Symbol> symbols;

  HclExpression(List<Symbol> symbols) {
    this.symbols = List.copyOf(symbols);
  }

  /** A literal: its HCL type ("string", "number", "boolean", "null") and its text. */
  public record Literal(String type, String value) {
    public static Literal string(String value) {
      return new Literal("string", value);
    }

    public static Literal number(String value) {
      return new Literal("number", value);
    }

    public static Literal bool(boolean value) {
      return new Literal("boolean", Boolean.toString(value));
    }

    public static Literal nullValue() {
      return new Literal("null", null);
    }
  }

  /** The whole expression when it is a single literal, such as {@code 60} or {@code "s"}. */
  public Optional<Literal> literal() {
    if (symbols.size() == 1 && symbols.get(0) instanceof HCLValue value) {
      return Optional.of(toLiteral(value));
    }
    return Optional.empty();
  }

  /**
   * Every reference in source order, as Terraform spells it: {@code var.region}, {@code
   * google_service_account.backfill[0].email}, {@code each.value}. Function names are not
   * references; their arguments are searched.
   */
  public List<String> references() {
    List<String> found = new ArrayList<>();
    visit(
        symbol -> {
          if (symbol instanceof VariableTree tree && !isFunctionCall(tree)) {
            found.add(traversal(tree));
          }
        });
    return found;
  }

  /** Names of the functions the expression calls. */
  public Set<String> functions() {
    Set<String> found = new LinkedHashSet<>();
    visit(
        symbol -> {
          if (symbol instanceof Function function) {
            found.add(function.getName());
          }
        });
    return found;
  }

  /** Every quoted string, including the literal parts of {@code "a${x}b"} ("a" and "b"). */
  public List<String> stringLiterals() {
    List<String> found = new ArrayList<>();
    visit(
        symbol -> {
          if (symbol instanceof HCLValue value && "string".equals(value.type)) {
            found.add(String.valueOf(value.value));
          }
        });
    return found;
  }

  /** Every literal, of any type, in source order. */
  public List<Literal> literals() {
    List<Literal> found = new ArrayList<>();
    visit(
        symbol -> {
          if (symbol instanceof HCLValue value) {
            found.add(toLiteral(value));
          }
        });
    return found;
  }

  /** Keys of the object constructors anywhere inside, e.g. the keys of {@code merge({...})}. */
  public Set<String> objectKeys() {
    Set<String> found = new LinkedHashSet<>();
    visit(
        symbol -> {
          if (symbol instanceof HCLAttribute attribute && attribute.getName() != null) {
            found.add(attribute.getName());
          }
        });
    return found;
  }

  /** The value of object key {@code key} anywhere inside (the first one in source order). */
  public Optional<HclExpression> objectEntry(String key) {
    List<HclExpression> found = new ArrayList<>();
    visit(
        symbol -> {
          if (symbol instanceof HCLAttribute attribute && key.equals(attribute.getName())) {
            found.add(new HclExpression(attribute.getChildren()));
          }
        });
    return found.stream().findFirst();
  }

  /** {@code reference operator literal} at the top level, such as {@code var.x >= 5}. */
  public record Comparison(String reference, String operator, Literal literal) {}

  /** Every top-level comparison of a reference with a literal, in source order. */
  public List<Comparison> comparisons() {
    List<Comparison> found = new ArrayList<>();
    for (int i = 0; i + 2 < symbols.size(); i++) {
      if (symbols.get(i) instanceof VariableTree tree
          && !isFunctionCall(tree)
          && symbols.get(i + 1) instanceof Operator operator
          && symbols.get(i + 2) instanceof HCLValue value) {
        found.add(new Comparison(traversal(tree), operator.getName(), toLiteral(value)));
      }
    }
    return found;
  }

  /** Source-like text, for assertion messages. */
  public String text() {
    return symbols.stream().map(HclExpression::render).collect(Collectors.joining(" "));
  }

  @Override
  public String toString() {
    return text();
  }

  static Literal toLiteral(HCLValue value) {
    return new Literal(value.type, value.value == null ? null : String.valueOf(value.value));
  }

  private void visit(Consumer<Symbol> visitor) {
    for (Symbol symbol : symbols) {
      visit(symbol, visitor);
    }
  }

  private static void visit(Symbol symbol, Consumer<Symbol> visitor) {
    if (symbol == null) {
      return;
    }
    visitor.accept(symbol);
    if (symbol.getChildren() != null) {
      for (Symbol child : symbol.getChildren()) {
        visit(child, visitor);
      }
    }
    // For expressions keep their parts outside the child list.
    if (symbol instanceof ComputedObject computed) {
      visit(computed.getSourceExpression(), visitor);
      visit(computed.getTargetExpression(), visitor);
      visit(computed.getConditionalExpression(), visitor);
    } else if (symbol instanceof ComputedTuple computed) {
      visit(computed.getSourceExpression(), visitor);
      visit(computed.getTargetExpression(), visitor);
      visit(computed.getConditionalExpression(), visitor);
    }
  }

  private static boolean isFunctionCall(VariableTree tree) {
    return !tree.getChildren().isEmpty() && tree.getChildren().get(0) instanceof Function;
  }

  /** a.b[0].c, a.b[*].c: hcl4j's own name spells an index as ".value". */
  private static String traversal(VariableTree tree) {
    StringBuilder text = new StringBuilder();
    for (Symbol part : tree.getChildren()) {
      if (part instanceof Variable) {
        if (text.length() > 0) {
          text.append('.');
        }
        text.append(part.getName());
      } else if (part instanceof HCLArray) {
        text.append('[').append(renderAll(part.getChildren(), "")).append(']');
      } else {
        text.append(render(part));
      }
    }
    return text.toString();
  }

  private static String renderAll(List<Symbol> parts, String separator) {
    return parts == null
        ? ""
        : parts.stream().map(HclExpression::render).collect(Collectors.joining(separator));
  }

  private static String render(Symbol symbol) {
    if (symbol instanceof HCLValue value) {
      return "string".equals(value.type)
          ? '"' + String.valueOf(value.value) + '"'
          : String.valueOf(value.value);
    }
    if (symbol instanceof VariableTree tree) {
      if (isFunctionCall(tree)) {
        Symbol function = tree.getChildren().get(0);
        String call = function.getName() + "(" + renderAll(function.getChildren(), ", ") + ")";
        return call + renderAll(tree.getChildren().subList(1, tree.getChildren().size()), "");
      }
      return traversal(tree);
    }
    if (symbol instanceof StringInterpolatedExpression) {
      return "interpolation(" + renderAll(symbol.getChildren(), " ") + ")";
    }
    if (symbol instanceof HCLArray) {
      return "[" + renderAll(symbol.getChildren(), ", ") + "]";
    }
    if (symbol instanceof HCLBlock) {
      return "{" + renderAll(symbol.getChildren(), ", ") + "}";
    }
    if (symbol instanceof HCLAttribute) {
      return symbol.getName() + " = " + renderAll(symbol.getChildren(), " ");
    }
    if (symbol instanceof PrimitiveType) {
      String inner = renderAll(symbol.getChildren(), ", ");
      return inner.isEmpty() ? symbol.getName() : symbol.getName() + "(" + inner + ")";
    }
    if (symbol instanceof ComputedObject || symbol instanceof ComputedTuple) {
      return "for(" + renderAll(symbol.getChildren(), " ") + ")";
    }
    String inner = renderAll(symbol.getChildren(), " ");
    return inner.isEmpty()
        ? String.valueOf(symbol.getName())
        : symbol.getName() + "(" + inner + ")";
  }
}
