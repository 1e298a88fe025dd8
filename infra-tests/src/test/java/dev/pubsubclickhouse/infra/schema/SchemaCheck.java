package dev.pubsubclickhouse.infra.schema;

import dev.pubsubclickhouse.infra.hcl.Expr;
import dev.pubsubclickhouse.infra.hcl.Expr.For;
import dev.pubsubclickhouse.infra.hcl.Expr.GetAttr;
import dev.pubsubclickhouse.infra.hcl.Expr.Name;
import dev.pubsubclickhouse.infra.hcl.Expr.Step;
import dev.pubsubclickhouse.infra.hcl.Expr.Traversal;
import dev.pubsubclickhouse.infra.hcl.HclAttribute;
import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.hcl.TerraformTree;
import dev.pubsubclickhouse.infra.schema.ProviderSchema.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks Terraform modules against the Google and kubernetes providers' schemas, as {@code
 * terraform validate} would with the provider installed: every resource and data source type, every
 * argument and nested block (inside dynamic blocks too), every provider argument and
 * lifecycle.ignore_changes path, the arguments of module calls against the called module's
 * variables, every reference ({@code var.}, {@code local.}, resources, data sources, module outputs
 * and the attributes read from them), and the addresses of moved blocks.
 */
public final class SchemaCheck {
  /** One thing the check refuses, where it is written. */
  public record Problem(String file, int line, String message) {
    @Override
    public String toString() {
      return file + ":" + line + ": " + message;
    }
  }

  private static final Set<String> RESOURCE_META =
      Set.of("count", "for_each", "provider", "depends_on");
  private static final Set<String> LIFECYCLE_ARGUMENTS =
      Set.of("create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by");
  private static final Set<String> CONDITION_ARGUMENTS = Set.of("condition", "error_message");
  private static final Set<String> VARIABLE_ARGUMENTS =
      Set.of("type", "default", "description", "sensitive", "nullable", "ephemeral");
  private static final Set<String> OUTPUT_ARGUMENTS =
      Set.of("value", "description", "sensitive", "depends_on", "ephemeral");
  private static final Set<String> MODULE_META =
      Set.of("source", "version", "count", "for_each", "providers", "depends_on");

  /**
   * Terraform's one built-in resource (provider terraform.io/builtin/terraform, part of Terraform
   * itself, so no provider schema holds it): it runs a provisioner and stores a value.
   */
  private static final Map<String, Node> BUILT_IN_RESOURCES =
      Map.of(
          "terraform_data",
          new Node(Set.of("input", "triggers_replace"), Map.of(), Set.of("id", "output")));

  /** The arguments of the one provisioner the configuration uses. */
  private static final Set<String> LOCAL_EXEC_ARGUMENTS =
      Set.of("command", "working_dir", "interpreter", "environment", "when", "on_failure", "quiet");

  private static final Set<String> BUILT_IN_ROOTS =
      Set.of("var", "local", "data", "module", "each", "count", "self", "path", "terraform");

  private final ProviderSchema google = ProviderSchema.google();
  private final ProviderSchema googleBeta = ProviderSchema.googleBeta();
  private final ProviderSchema kubernetes = ProviderSchema.kubernetes();

  /** Every problem in every module of {@code tree}, in file order. */
  public List<Problem> check(TerraformTree tree) {
    List<Problem> problems = new ArrayList<>();
    for (Map.Entry<Path, TerraformConfig> module : tree.modules().entrySet()) {
      new ModuleCheck(tree, module.getKey(), module.getValue(), problems).run();
    }
    return problems;
  }

  /** The check of one module: its blocks, then every reference in it. */
  private final class ModuleCheck {
    private final TerraformTree tree;
    private final Path dir;
    private final TerraformConfig module;
    private final List<Problem> problems;
    private final Set<String> variables;
    private final Set<String> locals;
    private final Map<String, HclBlock> declared = new HashMap<>();
    private String file;

    ModuleCheck(TerraformTree tree, Path dir, TerraformConfig module, List<Problem> problems) {
      this.tree = tree;
      this.dir = dir;
      this.module = module;
      this.problems = problems;
      this.variables = names(module.variables());
      this.locals =
          module.blocks("locals").stream()
              .flatMap(b -> b.attributes().keySet().stream())
              .collect(Collectors.toSet());
      for (HclBlock block : module.blocks()) {
        if (block.type().equals("resource") || block.type().equals("data")) {
          declared.put(block.type() + " " + block.label(0) + "." + block.label(1), block);
        }
        // A check block's data source is read like any other (data.TYPE.NAME).
        if (block.type().equals("check")) {
          for (HclBlock data : block.blocks("data")) {
            declared.put("data " + data.label(0) + "." + data.label(1), data);
          }
        }
      }
    }

    void run() {
      for (HclFile hclFile : module.files()) {
        file = dir.resolve(hclFile.name()).toString();
        for (HclBlock block : hclFile.blocks()) {
          topLevel(block);
        }
      }
    }

    private void topLevel(HclBlock block) {
      switch (block.type()) {
        case "terraform" -> {
          only(block, Set.of("required_version", "experiments"));
          for (HclBlock nested : block.blocks()) {
            if (!Set.of("required_providers", "backend", "cloud", "provider_meta")
                .contains(nested.type())) {
              problem(nested.line(), "terraform has no block " + nested.type());
            }
          }
        }
        case "provider" -> {
          ProviderSchema schema = providerNamed(block.label(0), block.line());
          if (schema != null) {
            body(block, schema.provider(), Set.of("alias"), Set.of());
          }
        }
        case "variable" -> {
          only(block, VARIABLE_ARGUMENTS);
          for (HclBlock nested : block.blocks()) {
            if (nested.type().equals("validation")) {
              only(nested, CONDITION_ARGUMENTS);
              noBlocks(nested);
            } else {
              problem(nested.line(), "variable has no block " + nested.type());
            }
          }
          references(block, Set.of());
        }
        case "output" -> {
          only(block, OUTPUT_ARGUMENTS);
          for (HclBlock nested : block.blocks()) {
            if (nested.type().equals("precondition")) {
              only(nested, CONDITION_ARGUMENTS);
            } else {
              problem(nested.line(), "output has no block " + nested.type());
            }
          }
          references(block, Set.of());
        }
        case "locals" -> {
          noBlocks(block);
          references(block, Set.of());
        }
        case "module" -> moduleCall(block);
        case "check" -> {
          // Terraform's check blocks: their assertions warn at plan, they do not stop it; a
          // data source scoped to one is read like any other.
          only(block, Set.of());
          for (HclBlock nested : block.blocks()) {
            switch (nested.type()) {
              case "data" -> resourceOrData(nested, false);
              case "assert" -> {
                only(nested, CONDITION_ARGUMENTS);
                noBlocks(nested);
                references(nested, Set.of());
              }
              default -> problem(nested.line(), "check has no block " + nested.type());
            }
          }
        }
        case "import" -> {
          // "to" is an address in a called module, which only terraform plan resolves.
          only(block, Set.of("to", "id", "provider", "for_each"));
          noBlocks(block);
          block
              .attribute("id")
              .ifPresent(id -> expression(id.value(), id.value().expr(), Set.of()));
        }
        case "moved" -> {
          // A resource's old address, which no block declares any more, to its new one.
          only(block, Set.of("from", "to"));
          noBlocks(block);
          movedAddress(block, "from", false);
          movedAddress(block, "to", true);
        }
        case "resource" -> resourceOrData(block, true);
        case "data" -> resourceOrData(block, false);
        default -> problem(block.line(), "unknown top-level block " + block.type());
      }
    }

    private void resourceOrData(HclBlock block, boolean resource) {
      ProviderSchema schema = defaultProvider(block.label(0));
      Optional<HclAttribute> provider = block.attribute("provider");
      if (provider.isPresent()) {
        String name = rootName(provider.get().value().expr());
        schema = providerNamed(name, provider.get().line());
        if (schema == null) {
          return;
        }
      }
      String type = block.label(0);
      Optional<Node> node = resource ? schema.resource(type) : schema.dataSource(type);
      if (resource && provider.isEmpty() && BUILT_IN_RESOURCES.containsKey(type)) {
        node = Optional.of(BUILT_IN_RESOURCES.get(type));
      }
      if (node.isEmpty()) {
        problem(
            block.line(),
            schema.name() + " has no " + (resource ? "resource" : "data source") + " " + type);
        references(block, Set.of());
        return;
      }
      body(
          block,
          node.get(),
          RESOURCE_META,
          resource ? Set.of("lifecycle", "provisioner") : Set.of("lifecycle"));
      for (HclBlock lifecycle : block.blocks("lifecycle")) {
        lifecycle(lifecycle, node.get(), resource);
      }
      if (resource) {
        for (HclBlock provisioner : block.blocks("provisioner")) {
          if (!provisioner.label(0).equals("local-exec")) {
            problem(provisioner.line(), "no provisioner " + provisioner.label(0) + " here");
          }
          only(provisioner, LOCAL_EXEC_ARGUMENTS);
          noBlocks(provisioner);
        }
      }
      references(block, Set.of());
    }

    /** Arguments and blocks of {@code block} against {@code node}, dynamic blocks included. */
    private void body(
        HclBlock block, Node node, Set<String> metaArguments, Set<String> metaBlocks) {
      for (HclAttribute attribute : block.attributes().values()) {
        if (!node.arguments().contains(attribute.name())
            && !metaArguments.contains(attribute.name())) {
          problem(attribute.line(), describe(block) + " has no argument " + attribute.name());
        }
      }
      for (HclBlock nested : block.blocks()) {
        if (metaBlocks.contains(nested.type())) {
          continue;
        }
        if (nested.type().equals("dynamic")) {
          dynamic(nested, node);
        } else if (node.blocks().containsKey(nested.type())) {
          body(nested, node.blocks().get(nested.type()), Set.of(), Set.of());
        } else {
          problem(nested.line(), describe(block) + " has no block " + nested.type());
        }
      }
    }

    private void dynamic(HclBlock dynamic, Node parent) {
      String label = dynamic.label(0);
      only(dynamic, Set.of("for_each", "iterator", "labels"));
      Node node = parent.blocks().get(label);
      if (node == null) {
        problem(dynamic.line(), "there is no block " + label + " to make dynamic here");
      }
      for (HclBlock nested : dynamic.blocks()) {
        if (!nested.type().equals("content")) {
          problem(nested.line(), "dynamic \"" + label + "\" has no block " + nested.type());
        } else if (node != null) {
          body(nested, node, Set.of(), Set.of());
        }
      }
    }

    private void lifecycle(HclBlock lifecycle, Node node, boolean resource) {
      only(lifecycle, resource ? LIFECYCLE_ARGUMENTS : Set.of());
      for (HclBlock nested : lifecycle.blocks()) {
        if (Set.of("precondition", "postcondition").contains(nested.type())) {
          only(nested, CONDITION_ARGUMENTS);
        } else {
          problem(nested.line(), "lifecycle has no block " + nested.type());
        }
      }
      lifecycle
          .attribute("ignore_changes")
          .ifPresent(
              ignored -> {
                if (ignored.value().expr() instanceof Expr.Tuple tuple) {
                  for (Expr item : tuple.items()) {
                    ignoredPath(ignored.value(), item, node);
                  }
                }
              });
    }

    /** {@code template[0].containers[0].image}: each name an argument or block of the one above. */
    private void ignoredPath(HclExpression holder, Expr item, Node node) {
      String first;
      List<Step> steps;
      if (item instanceof Name name) {
        first = name.name();
        steps = List.of();
      } else if (item instanceof Traversal t && t.source() instanceof Name name) {
        first = name.name();
        steps = t.steps();
      } else {
        return; // "all"
      }
      List<String> names = new ArrayList<>(List.of(first));
      steps.stream()
          .filter(GetAttr.class::isInstance)
          .map(s -> ((GetAttr) s).name())
          .forEach(names::add);
      Node current = node;
      for (String name : names) {
        if (current == null) {
          problem(
              holder.lineOf(item.span().start()), "ignore_changes goes below an argument: " + name);
          return;
        }
        if (!current.readable(name)) {
          problem(holder.lineOf(item.span().start()), "ignore_changes names no argument " + name);
          return;
        }
        current = current.blocks().get(name);
      }
    }

    private void moduleCall(HclBlock block) {
      Optional<String> source =
          block.attribute("source").flatMap(a -> a.value().literal()).map(l -> l.value());
      Optional<TerraformConfig> called =
          source
              .filter(s -> s.startsWith("./") || s.startsWith("../"))
              .flatMap(s -> tree.findModule(dir.resolve(s)));
      if (source.isEmpty()) {
        problem(block.line(), "module " + block.label(0) + " has no source");
      }
      if (source.isPresent() && called.isEmpty()) {
        problem(block.line(), "module source " + source.get() + " is no module under terraform/");
      }
      Set<String> calledVariables = called.map(m -> names(m.variables())).orElse(Set.of());
      for (HclAttribute attribute : block.attributes().values()) {
        if (!calledVariables.contains(attribute.name())
            && !MODULE_META.contains(attribute.name())) {
          problem(
              attribute.line(),
              "module " + block.label(0) + " has no variable " + attribute.name());
        }
      }
      for (HclBlock variable : called.map(TerraformConfig::variables).orElse(List.of())) {
        if (variable.attribute("default").isEmpty()
            && !block.attributes().containsKey(variable.label(0))) {
          problem(block.line(), "module " + block.label(0) + " needs " + variable.label(0));
        }
      }
      noBlocks(block);
      references(block, Set.of());
    }

    // --- References -----------------------------------------------------------------------------

    /** Every reference in {@code block}, with the names its dynamic blocks bring into scope. */
    private void references(HclBlock block, Set<String> scope) {
      for (HclAttribute attribute : block.attributes().values()) {
        if (block.type().equals("lifecycle") && attribute.name().equals("ignore_changes")) {
          continue; // paths relative to the resource, checked by ignoredPath
        }
        if (attribute.name().equals("provider")
            || (block.type().equals("variable") && attribute.name().equals("type"))) {
          continue; // a provider's name, checked by resourceOrData; a type constraint
        }
        expression(attribute.value(), attribute.value().expr(), scope);
      }
      for (HclBlock nested : block.blocks()) {
        Set<String> inner = scope;
        if (nested.type().equals("dynamic")) {
          inner = new HashSet<>(scope);
          inner.add(
              nested
                  .attribute("iterator")
                  .map(a -> rootName(a.value().expr()))
                  .orElse(nested.label(0)));
        }
        references(nested, inner);
      }
    }

    private void expression(HclExpression holder, Expr e, Set<String> scope) {
      if (e instanceof For f) {
        expression(holder, f.iteration().collection(), scope);
        Set<String> inner = new HashSet<>(scope);
        if (f.iteration().keyVariable() != null) {
          inner.add(f.iteration().keyVariable());
        }
        inner.add(f.iteration().valueVariable());
        for (Expr part : new Expr[] {f.key(), f.value(), f.condition()}) {
          if (part != null) {
            expression(holder, part, inner);
          }
        }
        return;
      }
      if (e instanceof Traversal t && t.source() instanceof Name name) {
        reference(holder, t, name.name(), scope);
        for (Step step : t.steps()) {
          if (step instanceof Expr.Index index) {
            expression(holder, index.key(), scope);
          }
        }
        return;
      }
      if (e instanceof Name name) {
        reference(holder, new Traversal(name.span(), name, List.of()), name.name(), scope);
        return;
      }
      forEachChild(e, child -> expression(holder, child, scope));
    }

    private void reference(HclExpression holder, Traversal t, String root, Set<String> scope) {
      int line = holder.lineOf(t.span().start());
      List<String> names =
          t.steps().stream()
              .filter(GetAttr.class::isInstance)
              .map(s -> ((GetAttr) s).name())
              .collect(Collectors.toList());
      if (scope.contains(root)) {
        return;
      }
      switch (root) {
        case "var" -> {
          if (!names.isEmpty() && !variables.contains(names.get(0))) {
            problem(line, "no variable " + names.get(0));
          }
        }
        case "local" -> {
          if (!names.isEmpty() && !locals.contains(names.get(0))) {
            problem(line, "no local " + names.get(0));
          }
        }
        case "data" -> {
          if (names.size() >= 2) {
            declaredResource(
                line, "data", names.get(0), names.get(1), names.subList(2, names.size()));
          }
        }
        case "module" -> moduleOutput(line, names);
        default -> {
          if ((root.startsWith("google_")
                  || root.startsWith("kubernetes_")
                  || BUILT_IN_RESOURCES.containsKey(root))
              && !names.isEmpty()) {
            declaredResource(line, "resource", root, names.get(0), names.subList(1, names.size()));
          } else if (!BUILT_IN_ROOTS.contains(root)) {
            problem(line, "unknown reference " + root);
          }
        }
      }
    }

    private void declaredResource(
        int line, String kind, String type, String name, List<String> attributes) {
      HclBlock block = declared.get(kind + " " + type + "." + name);
      if (block == null) {
        problem(line, "no " + kind + " " + type + "." + name);
        return;
      }
      ProviderSchema schema =
          block
              .attribute("provider")
              .map(p -> rootName(p.value().expr()))
              .map(p -> p.equals("google-beta") ? googleBeta : defaultProvider(type))
              .orElse(defaultProvider(type));
      Optional<Node> node =
          kind.equals("resource") ? schema.resource(type) : schema.dataSource(type);
      if (kind.equals("resource") && BUILT_IN_RESOURCES.containsKey(type)) {
        node = Optional.of(BUILT_IN_RESOURCES.get(type));
      }
      Node current = node.orElse(null);
      for (String attribute : attributes) {
        if (current == null) {
          return; // an unknown type is reported where it is declared; below an argument: a value
        }
        if (!current.readable(attribute) && !attribute.equals("id")) {
          problem(line, type + " has no attribute " + attribute);
          return;
        }
        current = current.blocks().get(attribute);
      }
    }

    private void moduleOutput(int line, List<String> names) {
      if (names.isEmpty()) {
        return;
      }
      Optional<HclBlock> call =
          module.blocks("module").stream().filter(b -> b.label(0).equals(names.get(0))).findFirst();
      if (call.isEmpty()) {
        problem(line, "no module " + names.get(0));
        return;
      }
      Optional<TerraformConfig> called =
          call.get()
              .attribute("source")
              .flatMap(a -> a.value().literal())
              .flatMap(l -> tree.findModule(dir.resolve(l.value())));
      if (called.isPresent()
          && names.size() > 1
          && !names(called.get().outputs()).contains(names.get(1))) {
        problem(line, "module " + names.get(0) + " has no output " + names.get(1));
      }
    }

    // --- Helpers --------------------------------------------------------------------------------

    private ProviderSchema providerNamed(String name, int line) {
      switch (name) {
        case "google":
          return google;
        case "google-beta":
          return googleBeta;
        case "kubernetes":
          return kubernetes;
        default:
          problem(line, "no schema for provider " + name);
          return null;
      }
    }

    /** The resource a moved block's {@code from} or {@code to} names, declared or gone. */
    private void movedAddress(HclBlock moved, String end, boolean declaredHere) {
      Optional<HclAttribute> attribute = moved.attribute(end);
      if (attribute.isEmpty()) {
        problem(moved.line(), "moved has no " + end);
        return;
      }
      Expr address = attribute.get().value().expr();
      List<String> names =
          address instanceof Traversal t
              ? t.steps().stream()
                  .filter(GetAttr.class::isInstance)
                  .map(step -> ((GetAttr) step).name())
                  .collect(Collectors.toList())
              : List.of();
      if (names.size() != 1) {
        problem(attribute.get().line(), "moved " + end + " is no resource address");
        return;
      }
      String resource = rootName(address) + "." + names.get(0);
      if (declared.containsKey("resource " + resource) != declaredHere) {
        problem(
            attribute.get().line(),
            declaredHere
                ? "moved to names no resource " + resource
                : "moved from names " + resource + ", which is still declared");
      }
    }

    private void only(HclBlock block, Set<String> arguments) {
      for (HclAttribute attribute : block.attributes().values()) {
        if (!arguments.contains(attribute.name())) {
          problem(attribute.line(), describe(block) + " has no argument " + attribute.name());
        }
      }
    }

    private void noBlocks(HclBlock block) {
      for (HclBlock nested : block.blocks()) {
        problem(nested.line(), describe(block) + " has no block " + nested.type());
      }
    }

    private void problem(int line, String message) {
      problems.add(new Problem(file, line, message));
    }
  }

  /** The provider Terraform gives a resource type without a provider argument: its prefix's. */
  private ProviderSchema defaultProvider(String type) {
    return type.startsWith("kubernetes_") ? kubernetes : google;
  }

  private static Set<String> names(List<HclBlock> blocks) {
    return blocks.stream().map(b -> b.label(0)).collect(Collectors.toSet());
  }

  private static String describe(HclBlock block) {
    return block.labels().isEmpty() ? block.type() : block.type() + " " + block.labels();
  }

  private static String rootName(Expr e) {
    if (e instanceof Name name) {
      return name.name();
    }
    if (e instanceof Traversal t && t.source() instanceof Name name) {
      return name.name();
    }
    return "";
  }

  private static void forEachChild(Expr e, java.util.function.Consumer<Expr> action) {
    if (e instanceof Expr.Template t) {
      t.parts().forEach(action);
    } else if (e instanceof Traversal t) {
      action.accept(t.source());
      for (Step step : t.steps()) {
        if (step instanceof Expr.Index index) {
          action.accept(index.key());
        }
      }
    } else if (e instanceof Expr.FunctionCall call) {
      call.arguments().forEach(action);
    } else if (e instanceof Expr.Tuple tuple) {
      tuple.items().forEach(action);
    } else if (e instanceof Expr.ObjectCons object) {
      for (Expr.ObjectItem item : object.items()) {
        if (!(item.key() instanceof Expr.Literal)) {
          action.accept(item.key());
        }
        action.accept(item.value());
      }
    } else if (e instanceof Expr.Conditional c) {
      action.accept(c.condition());
      action.accept(c.whenTrue());
      action.accept(c.whenFalse());
    } else if (e instanceof Expr.Binary b) {
      action.accept(b.left());
      action.accept(b.right());
    } else if (e instanceof Expr.Unary u) {
      action.accept(u.operand());
    }
  }
}
