package dev.pubsubclickhouse.infra.schema;

import dev.pubsubclickhouse.infra.hcl.Expr;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectCons;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectItem;
import dev.pubsubclickhouse.infra.hcl.Expr.Template;
import dev.pubsubclickhouse.infra.hcl.Expr.Tuple;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.Yaml;

/**
 * Checks the {@code manifest} of a {@code kubernetes_manifest} that holds a KEDA object against
 * KEDA's own CustomResourceDefinitions (src/test/resources/keda/, copied by
 * infra-tests/provider-schema/keda), as the API server would at apply: every field is one the CRD's
 * openAPIV3Schema declares, every required field is there, literal values have the declared type
 * and are in its enum. A trigger's metadata is free-form in the CRD; for gcp-pubsub its names are
 * checked against the ones KEDA's scaler reads. Values computed by expressions are not typed.
 */
public final class KedaManifestCheck {
  private static final List<String> CRDS =
      List.of("keda.sh_scaledobjects.yaml", "keda.sh_triggerauthentications.yaml");

  /** "apiVersion kind" -> the openAPIV3Schema of that version of the CRD. */
  private final Map<String, Map<String, Object>> schemas = new HashMap<>();

  /** Trigger type -> the metadata names its scaler reads. */
  private final Map<String, Set<String>> triggerMetadata = new HashMap<>();

  public KedaManifestCheck() {
    for (String crd : CRDS) {
      Map<String, Object> document = yaml(text("/keda/" + crd));
      Map<String, Object> spec = map(document.get("spec"));
      String group = (String) spec.get("group");
      String kind = (String) map(spec.get("names")).get("kind");
      for (Object version : (List<?>) spec.get("versions")) {
        Map<String, Object> v = map(version);
        schemas.put(
            group + "/" + v.get("name") + " " + kind,
            map(map(v.get("schema")).get("openAPIV3Schema")));
      }
    }
    Set<String> pubsub = new HashSet<>();
    for (String line : text("/keda/gcp-pubsub-metadata.txt").split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split(" ");
      pubsub.add(parts[0]);
      if (parts.length > 1 && parts[1].contains("resolvedEnv")) {
        pubsub.add(parts[0] + "FromEnv");
      }
    }
    triggerMetadata.put("gcp-pubsub", Set.copyOf(pubsub));
  }

  /** The apiVersion/kind pairs the CRDs define, e.g. "keda.sh/v1alpha1 ScaledObject". */
  public Set<String> kinds() {
    return schemas.keySet();
  }

  /** What is wrong with {@code manifest}, each as "line N: path: message". */
  public List<String> check(HclExpression manifest) {
    List<String> problems = new ArrayList<>();
    if (!(manifest.expr() instanceof ObjectCons object)) {
      problems.add(where(manifest, manifest.expr()) + "manifest is no object constructor");
      return problems;
    }
    String apiVersion = literalValue(manifest, item(object, "apiVersion")).orElse("?");
    String kind = literalValue(manifest, item(object, "kind")).orElse("?");
    Map<String, Object> schema = schemas.get(apiVersion + " " + kind);
    if (schema == null) {
      problems.add(where(manifest, object) + "no KEDA CRD defines " + apiVersion + " " + kind);
      return problems;
    }
    new Walk(manifest, problems).value(object, schema, "");
    return problems;
  }

  /** One walk of a manifest against a schema, collecting problems. */
  private final class Walk {
    private final HclExpression holder;
    private final List<String> problems;

    Walk(HclExpression holder, List<String> problems) {
      this.holder = holder;
      this.problems = problems;
    }

    void value(Expr e, Map<String, Object> schema, String path) {
      String type = (String) schema.get("type");
      if (e instanceof ObjectCons object) {
        if (type != null && !type.equals("object")) {
          problem(e, path, "an object where the CRD wants " + type);
          return;
        }
        object(object, schema, path);
      } else if (e instanceof Tuple tuple) {
        if (type != null && !type.equals("array")) {
          problem(e, path, "a list where the CRD wants " + type);
          return;
        }
        Map<String, Object> items = map(schema.getOrDefault("items", Map.of()));
        for (int i = 0; i < tuple.items().size(); i++) {
          value(tuple.items().get(i), items, path + "[" + i + "]");
        }
      } else {
        scalar(e, schema, type, path);
      }
    }

    private void object(ObjectCons object, Map<String, Object> schema, String path) {
      Map<String, Object> properties = map(schema.getOrDefault("properties", Map.of()));
      Object additional = schema.get("additionalProperties");
      Set<String> present = new HashSet<>();
      for (ObjectItem item : object.items()) {
        Optional<Literal> key = holder.part(item.key()).literal();
        if (key.isEmpty()) {
          continue; // a computed key: only the API server can judge it
        }
        String name = key.get().value();
        present.add(name);
        String here = path.isEmpty() ? name : path + "." + name;
        if (properties.containsKey(name)) {
          value(item.value(), map(properties.get(name)), here);
        } else if (additional instanceof Map<?, ?> valueSchema) {
          value(item.value(), map(valueSchema), here);
        } else if (!properties.isEmpty() || Boolean.FALSE.equals(additional)) {
          problem(item.key(), here, "the CRD has no field " + name);
        }
      }
      for (Object required : (List<?>) schema.getOrDefault("required", List.of())) {
        if (!present.contains((String) required)) {
          problem(object, path, "required field " + required + " is missing");
        }
      }
      if (path.matches("spec\\.triggers\\[\\d+]")) {
        triggerMetadata(object, path);
      }
    }

    private void triggerMetadata(ObjectCons trigger, String path) {
      Optional<String> type = literalValue(holder, item(trigger, "type"));
      Set<String> known = type.map(triggerMetadata::get).orElse(null);
      Expr metadata = item(trigger, "metadata");
      if (known == null || !(metadata instanceof ObjectCons object)) {
        return;
      }
      for (ObjectItem item : object.items()) {
        holder
            .part(item.key())
            .literal()
            .map(Literal::value)
            .filter(name -> !known.contains(name))
            .ifPresent(
                name ->
                    problem(
                        item.key(),
                        path + ".metadata." + name,
                        "KEDA's " + type.get() + " scaler reads no metadata " + name));
      }
    }

    private void scalar(Expr e, Map<String, Object> schema, String type, String path) {
      Optional<Literal> literal = holder.part(e).literal();
      boolean intOrString = Boolean.TRUE.equals(schema.get("x-kubernetes-int-or-string"));
      String written;
      if (literal.isPresent()) {
        written = literal.get().type();
      } else if (e instanceof Template
          || (e instanceof Expr.FunctionCall call && call.name().equals("tostring"))) {
        written = "string";
      } else {
        return; // a reference or a computation: its type is known only at plan
      }
      boolean fits =
          type == null
              || intOrString && (written.equals("string") || written.equals("number"))
              || switch (type) {
                case "string" -> written.equals("string");
                case "integer", "number" -> written.equals("number");
                case "boolean" -> written.equals("boolean");
                default -> false;
              };
      if (!fits) {
        problem(e, path, "a " + written + " where the CRD wants " + type);
        return;
      }
      List<?> allowed = (List<?>) schema.get("enum");
      if (allowed != null && literal.isPresent() && !allowed.contains(literal.get().value())) {
        problem(e, path, literal.get().value() + " is not one of " + allowed);
      }
    }

    private void problem(Expr at, String path, String message) {
      problems.add(where(holder, at) + (path.isEmpty() ? "" : path + ": ") + message);
    }
  }

  private static Expr item(ObjectCons object, String key) {
    for (ObjectItem item : object.items()) {
      if (item.key() instanceof Expr.Literal l && l.value().equals(key)) {
        return item.value();
      }
      if (item.key() instanceof Template t
          && t.parts().size() == 1
          && t.parts().get(0) instanceof Expr.Literal l
          && l.value().equals(key)) {
        return item.value();
      }
    }
    return null;
  }

  private static Optional<String> literalValue(HclExpression holder, Expr e) {
    return e == null ? Optional.empty() : holder.part(e).literal().map(Literal::value);
  }

  private static String where(HclExpression holder, Expr at) {
    return "line " + holder.lineOf(at.span().start()) + ": ";
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static Map<String, Object> yaml(String text) {
    // The copied CRD starts with a comment and a document separator: one document.
    return map(new Yaml().loadAll(text).iterator().next());
  }

  private static String text(String resource) {
    try (InputStream in = KedaManifestCheck.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no " + resource + " on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
