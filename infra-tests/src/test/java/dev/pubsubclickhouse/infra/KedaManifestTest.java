package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.Expr;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectCons;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectItem;
import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.schema.KedaManifestCheck;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GKE module's KEDA objects (kubernetes_manifest, which the kubernetes provider does not type)
 * against KEDA's published CRDs, as the API server would check them at apply; and the check catches
 * a misspelling of any field under spec, each misspelled in turn.
 */
class KedaManifestTest {
  private static final TerraformConfig GKE = TerraformFiles.GKE_MODULE;
  private static final KedaManifestCheck CHECK = new KedaManifestCheck();

  @Test
  void everyKedaObjectFitsKedasCrd() {
    List<HclBlock> manifests = GKE.resources("kubernetes_manifest");

    assertThat(manifests)
        .extracting(b -> b.label(1))
        .containsExactlyInAnyOrder("keda_scaled_object", "keda_trigger_authentication");
    for (HclBlock manifest : manifests) {
      assertThat(CHECK.check(manifest.expr("manifest"))).as(manifest.describe()).isEmpty();
    }
    assertThat(CHECK.kinds())
        .containsExactlyInAnyOrder(
            "keda.sh/v1alpha1 ScaledObject", "keda.sh/v1alpha1 TriggerAuthentication");
  }

  @Test
  void aMisspelledFieldUnderSpecIsRefused() {
    List<String> missed = new ArrayList<>();
    int mutations = 0;
    HclFile file = GKE.file("scaling.tf");
    for (HclBlock manifest : GKE.resources("kubernetes_manifest")) {
      HclExpression value = manifest.expr("manifest");
      Expr spec = entry((ObjectCons) value.expr(), "spec");
      for (ObjectItem item : items(spec)) {
        mutations++;
        Expr.Span key = item.key().span();
        String name = file.source().substring(key.start(), key.end());
        String source =
            file.source().substring(0, key.start())
                + name
                + "x"
                + file.source().substring(key.end());
        HclBlock mutated =
            HclFile.parse("scaling.tf", source).blocks().stream()
                .filter(b -> b.labels().equals(manifest.labels()))
                .findFirst()
                .orElseThrow();
        List<String> problems = CHECK.check(mutated.expr("manifest"));
        if (problems.stream().noneMatch(p -> p.contains(name + "x"))) {
          missed.add(name + " -> " + problems);
        }
      }
    }

    assertThat(missed).isEmpty();
    // Every field under both specs, the trigger's metadata names included.
    assertThat(mutations).isGreaterThan(25);
  }

  @Test
  void aWrongTypeOrAnUnknownProviderIsRefused() {
    HclFile file = GKE.file("scaling.tf");
    for (String[] change :
        new String[][] {
          {"provider = \"gcp\"", "provider = \"google\"", "is not one of"},
          {"pollingInterval = 30", "pollingInterval = \"30s\"", "where the CRD wants integer"},
          {"type = \"gcp-pubsub\"", "typo = \"gcp-pubsub\"", "required field type is missing"},
        }) {
      assertThat(file.source()).contains(change[0]);
      List<String> problems = new ArrayList<>();
      for (HclBlock block :
          HclFile.parse("scaling.tf", file.source().replace(change[0], change[1])).blocks()) {
        if (block.labels().size() == 2 && block.label(0).equals("kubernetes_manifest")) {
          problems.addAll(CHECK.check(block.expr("manifest")));
        }
      }
      assertThat(problems).as(change[1]).anyMatch(p -> p.contains(change[2]));
    }
  }

  /** Every object key under {@code e}, at any depth, in source order. */
  private static List<ObjectItem> items(Expr e) {
    List<ObjectItem> found = new ArrayList<>();
    if (e instanceof ObjectCons object) {
      for (ObjectItem item : object.items()) {
        found.add(item);
        found.addAll(items(item.value()));
      }
    } else if (e instanceof Expr.Tuple tuple) {
      tuple.items().forEach(i -> found.addAll(items(i)));
    }
    return found;
  }

  private static Expr entry(ObjectCons object, String key) {
    return object.items().stream()
        .filter(i -> i.key() instanceof Expr.Literal l && l.value().equals(key))
        .map(ObjectItem::value)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + key));
  }
}
