package dev.pubsubclickhouse.infra.hcl;

import dev.pubsubclickhouse.infra.hcl.Expr.Binary;
import dev.pubsubclickhouse.infra.hcl.Expr.Conditional;
import dev.pubsubclickhouse.infra.hcl.Expr.For;
import dev.pubsubclickhouse.infra.hcl.Expr.FunctionCall;
import dev.pubsubclickhouse.infra.hcl.Expr.GetAttr;
import dev.pubsubclickhouse.infra.hcl.Expr.Index;
import dev.pubsubclickhouse.infra.hcl.Expr.LiteralKind;
import dev.pubsubclickhouse.infra.hcl.Expr.Name;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectCons;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectItem;
import dev.pubsubclickhouse.infra.hcl.Expr.Splat;
import dev.pubsubclickhouse.infra.hcl.Expr.Step;
import dev.pubsubclickhouse.infra.hcl.Expr.Template;
import dev.pubsubclickhouse.infra.hcl.Expr.Traversal;
import dev.pubsubclickhouse.infra.hcl.Expr.Tuple;
import dev.pubsubclickhouse.infra.hcl.Expr.Unary;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The value of an attribute as written: literals, references ({@code var.x}, {@code
 * google_pubsub_topic.dead_letter.id}), function calls, operators and object or tuple constructors.
 * Nothing is evaluated.
 */
public final class HclExpression {
  private final Expr expr;
  private final SourceText text;
  private final String source;

  HclExpression(Expr expr, SourceText text) {
    this.expr = expr;
    this.text = text;
    this.source = text.text();
  }

  /** The syntax tree. */
  public Expr expr() {
    return expr;
  }

  /** A part of this expression (a node of {@link #expr()}), with its text. */
  public HclExpression part(Expr node) {
    return new HclExpression(node, text);
  }

  /** The 1-based line of an offset in this expression's file. */
  public int lineOf(int offset) {
    return text.line(offset);
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

  /**
   * The whole expression when it is a single literal: {@code 60}, {@code -1}, {@code true}, {@code
   * null}, or a string without interpolations such as {@code "s"}.
   */
  public Optional<Literal> literal() {
    return literalOf(expr);
  }

  /**
   * Every reference in source order, as Terraform spells it: {@code var.region}, {@code
   * google_service_account.backfill[0].email}, {@code each.value}. Function names are not
   * references; their arguments are searched.
   */
  public List<String> references() {
    return collect(
        (e, found) -> {
          if (e instanceof Traversal t && t.source() instanceof Name) {
            found.accept(render(t));
          } else if (e instanceof Name n && !isTraversalRoot(n)) {
            found.accept(n.name());
          }
        });
  }

  /** Names of the functions the expression calls. */
  public Set<String> functions() {
    return new LinkedHashSet<>(
        this.<String>collect(
            (e, found) -> {
              if (e instanceof FunctionCall call) {
                found.accept(call.name());
              }
            }));
  }

  /** Every quoted string's literal text, including the literal parts of {@code "a${x}b"}. */
  public List<String> stringLiterals() {
    return collect(
        (e, found) -> {
          if (e instanceof Expr.Literal l && l.kind() == LiteralKind.STRING) {
            found.accept(l.value());
          }
        });
  }

  /** Every literal, of any type, in source order. */
  public List<Literal> literals() {
    return collect(
        (e, found) -> {
          if (e instanceof Expr.Literal l) {
            found.accept(toLiteral(l));
          }
        });
  }

  /** Keys of the object constructors anywhere inside, e.g. the keys of {@code merge({...})}. */
  public Set<String> objectKeys() {
    return new LinkedHashSet<>(
        this.<String>collect(
            (e, found) -> {
              if (e instanceof ObjectCons object) {
                for (ObjectItem item : object.items()) {
                  literalOf(item.key()).ifPresent(key -> found.accept(key.value()));
                }
              }
            }));
  }

  /** The value of object key {@code key} anywhere inside (the first one in source order). */
  public Optional<HclExpression> objectEntry(String key) {
    return this.<HclExpression>collect(
            (e, found) -> {
              if (e instanceof ObjectCons object) {
                for (ObjectItem item : object.items()) {
                  if (literalOf(item.key()).map(l -> l.value().equals(key)).orElse(false)) {
                    found.accept(new HclExpression(item.value(), text));
                  }
                }
              }
            })
        .stream()
        .findFirst();
  }

  /** {@code reference operator literal}, such as {@code var.x >= 5}. */
  public record Comparison(String reference, String operator, Literal literal) {}

  /** Every comparison of a reference with a literal anywhere inside, in source order. */
  public List<Comparison> comparisons() {
    return collect(
        (e, found) -> {
          if (e instanceof Binary b
              && b.left() instanceof Traversal t
              && t.source() instanceof Name
              && List.of("==", "!=", "<", "<=", ">", ">=").contains(b.operator())) {
            literalOf(b.right())
                .ifPresent(l -> found.accept(new Comparison(render(t), b.operator(), l)));
          }
        });
  }

  /** The expression's text as written. */
  public String text() {
    return source.substring(expr.span().start(), expr.span().end());
  }

  @Override
  public String toString() {
    return text();
  }

  /** {@code a.b[0].c}, {@code a.b[*].c}, {@code a["k"]}, {@code a[each.key]}. */
  public String render(Traversal traversal) {
    StringBuilder text = new StringBuilder(((Name) traversal.source()).name());
    for (Step step : traversal.steps()) {
      if (step instanceof GetAttr get) {
        text.append('.').append(get.name());
      } else if (step instanceof Splat) {
        text.append("[*]");
      } else if (step instanceof Index index) {
        text.append('[')
            .append(source, index.key().span().start(), index.key().span().end())
            .append(']');
      }
    }
    return text.toString();
  }

  private static Optional<Literal> literalOf(Expr e) {
    if (e instanceof Expr.Literal l) {
      return Optional.of(toLiteral(l));
    }
    if (e instanceof Template t && t.parts().isEmpty()) {
      return Optional.of(Literal.string(""));
    }
    if (e instanceof Template t
        && t.parts().size() == 1
        && t.parts().get(0) instanceof Expr.Literal l) {
      return Optional.of(toLiteral(l));
    }
    if (e instanceof Unary u
        && u.operator().equals("-")
        && u.operand() instanceof Expr.Literal l
        && l.kind() == LiteralKind.NUMBER) {
      return Optional.of(Literal.number("-" + l.value()));
    }
    return Optional.empty();
  }

  private static Literal toLiteral(Expr.Literal l) {
    String type;
    switch (l.kind()) {
      case STRING:
        type = "string";
        break;
      case NUMBER:
        type = "number";
        break;
      case BOOL:
        type = "boolean";
        break;
      default:
        type = "null";
        break;
    }
    return new Literal(type, l.value());
  }

  /** Names that start a traversal are reported with it, not alone. */
  private boolean isTraversalRoot(Name name) {
    return !this.<Boolean>collect(
            (e, found) -> {
              if (e instanceof Traversal t && t.source() == name) {
                found.accept(true);
              }
            })
        .isEmpty();
  }

  /** What {@code finder} passes on for each node, depth first in source order. */
  private <T> List<T> collect(BiConsumer<Expr, Consumer<T>> finder) {
    List<T> found = new ArrayList<>();
    visit(expr, e -> finder.accept(e, found::add));
    return found;
  }

  /** Depth first, in source order. */
  static void visit(Expr e, Consumer<Expr> visitor) {
    if (e == null) {
      return;
    }
    visitor.accept(e);
    if (e instanceof Template t) {
      t.parts().forEach(p -> visit(p, visitor));
    } else if (e instanceof Traversal t) {
      visit(t.source(), visitor);
      for (Step step : t.steps()) {
        if (step instanceof Index index) {
          visit(index.key(), visitor);
        }
      }
    } else if (e instanceof FunctionCall call) {
      call.arguments().forEach(a -> visit(a, visitor));
    } else if (e instanceof Tuple tuple) {
      tuple.items().forEach(i -> visit(i, visitor));
    } else if (e instanceof ObjectCons object) {
      for (ObjectItem item : object.items()) {
        // A bare identifier key names the entry; it is not a string anyone wrote.
        if (!(item.key() instanceof Expr.Literal)) {
          visit(item.key(), visitor);
        }
        visit(item.value(), visitor);
      }
    } else if (e instanceof For f) {
      visit(f.iteration().collection(), visitor);
      visit(f.key(), visitor);
      visit(f.value(), visitor);
      visit(f.condition(), visitor);
    } else if (e instanceof Conditional c) {
      visit(c.condition(), visitor);
      visit(c.whenTrue(), visitor);
      visit(c.whenFalse(), visitor);
    } else if (e instanceof Binary b) {
      visit(b.left(), visitor);
      visit(b.right(), visitor);
    } else if (e instanceof Unary u) {
      visit(u.operand(), visitor);
    }
  }
}
