package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module's pubsub.tf: the push subscription and the dead-letter path. */
class PushSubscriptionTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;
  private static final HclBlock PUSH = TF.resource("google_pubsub_subscription", "push");

  @Test
  void pushGoesToTheServiceUrlWithAnOidcTokenOfThePushAccountForThePushAudience() {
    HclBlock pushConfig = PUSH.block("push_config");
    HclBlock oidc = pushConfig.block("oidc_token");

    assertThat(pushConfig.expr("push_endpoint").references())
        .containsExactly("google_cloud_run_v2_service.ingest.uri");
    assertThat(oidc.expr("service_account_email").references())
        .containsExactly("google_service_account.push.email");
    assertThat(oidc.expr("audience").references()).containsExactly("local.push_audience");
  }

  @Test
  void theServiceAcceptsThePushAudienceAsACustomAudience() {
    HclBlock service = TF.resource("google_cloud_run_v2_service", "ingest");

    assertThat(service.expr("custom_audiences").references())
        .containsExactly("local.push_audience");
  }

  @Test
  void pushSubscriptionDeadLettersToTheDeadLetterTopicAfterMaxDeliveryAttempts() {
    HclBlock policy = PUSH.block("dead_letter_policy");

    assertThat(policy.expr("dead_letter_topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
    assertThat(policy.expr("max_delivery_attempts").references())
        .containsExactly("var.max_delivery_attempts");
  }

  @Test
  void pushSubscriptionRetriesWithTheBackoffVariablesInSeconds() {
    HclBlock retry = PUSH.block("retry_policy");

    assertThat(retry.expr("minimum_backoff").references())
        .containsExactly("var.minimum_backoff_seconds");
    assertThat(String.join("", retry.expr("minimum_backoff").stringLiterals())).isEqualTo("s");
    assertThat(retry.expr("maximum_backoff").references())
        .containsExactly("var.maximum_backoff_seconds");
    assertThat(String.join("", retry.expr("maximum_backoff").stringLiterals())).isEqualTo("s");
  }

  @Test
  void pushSubscriptionNeverExpires() {
    assertThat(PUSH.block("expiration_policy").expr("ttl").literal()).contains(Literal.string(""));
  }

  @Test
  void ackDeadlineIsAVariableDefaultingTo60Seconds() {
    assertThat(PUSH.expr("ack_deadline_seconds").references())
        .containsExactly("var.ack_deadline_seconds");
    assertThat(TF.variableDefault("ack_deadline_seconds")).contains(Literal.number("60"));
  }

  @Test
  void filterIsOptionalAndUnsetByDefault() {
    assertThat(PUSH.expr("filter").references()).containsExactly("var.subscription_filter");
    assertThat(TF.variableDefault("subscription_filter")).contains(Literal.nullValue());
  }

  @Test
  void unwrappedPushWritesMetadataHeadersAndTellsTheService() {
    HclBlock noWrapper = PUSH.block("push_config").dynamic("no_wrapper");

    assertThat(noWrapper.expr("for_each").references()).containsExactly("var.push_unwrapped");
    assertThat(noWrapper.block("content").expr("write_metadata").literal())
        .contains(Literal.bool(true));
    assertThat(TF.variableDefault("push_unwrapped")).contains(Literal.bool(false));
    assertThat(TF.local("service_env_all").objectEntry("PUSH_UNWRAPPED").orElseThrow().references())
        .containsExactly("var.push_unwrapped");
  }

  @Test
  void theDeadLetterTopicHasOnePullSubscriptionKeepingMessagesSevenDays() {
    List<HclBlock> onDeadLetterTopic =
        TF.resourcesReferencing(
            "google_pubsub_subscription", "topic", "google_pubsub_topic.dead_letter.id");

    assertThat(onDeadLetterTopic).extracting(b -> b.label(1)).containsExactly("dead_letter");
    HclBlock pull = onDeadLetterTopic.get(0);
    assertThat(pull.blocks("push_config")).isEmpty();
    assertThat(pull.expr("message_retention_duration").references())
        .containsExactly("var.dead_letter_retention_seconds");
    assertThat(TF.variableDefault("dead_letter_retention_seconds"))
        .contains(Literal.number(String.valueOf(7 * 24 * 3600)));
    assertThat(pull.block("expiration_policy").expr("ttl").literal()).contains(Literal.string(""));
  }

  @Test
  void everyGrantOnThePushSubscriptionIsReplacedWithItAndOnlyThen() {
    // A grant keyed by the subscription's unchanged id is not re-created when a new filter
    // replaces the subscription; without replace_triggered_by, dead-lettering stops silently.
    // The trigger names the arguments that replace the subscription under the same id (its name
    // is the id itself): the whole resource would also re-create the grant at every in-place
    // change (an ack deadline, a label), leaving a moment without it.
    List<HclBlock> grants =
        TF.blocks("resource").stream()
            .filter(b -> b.label(0).startsWith("google_pubsub_subscription_iam_"))
            .filter(
                b ->
                    b.expr("subscription").references().stream()
                        .anyMatch(r -> r.startsWith("google_pubsub_subscription.push.")))
            .collect(Collectors.toList());

    assertThat(grants).isNotEmpty();
    for (HclBlock grant : grants) {
      assertThat(grant.block("lifecycle").expr("replace_triggered_by").references())
          .as(grant.describe())
          .containsExactlyInAnyOrder(
              "google_pubsub_subscription.push.filter", "google_pubsub_subscription.push.topic");
    }
  }

  @Test
  void aFilterChangeThatWouldDropTheBacklogIsNamedAtPlanTime() {
    // Terraform cannot see the stored filter in a precondition; a check block reads the live
    // subscription and warns in the plan when the filter differs.
    HclBlock check =
        TF.blocks("check").stream()
            .filter(b -> b.label(0).equals("push_subscription_keeps_its_backlog"))
            .findFirst()
            .orElseThrow();
    HclBlock live = check.blocks("data").get(0);
    HclBlock assertion = check.block("assert");

    assertThat(live.label(0)).isEqualTo("google_pubsub_subscription");
    assertThat(live.expr("name").references())
        .containsExactly("google_pubsub_subscription.push.name");
    assertThat(assertion.expr("condition").references())
        .contains("var.subscription_filter", "data.google_pubsub_subscription.live.filter");
    assertThat(String.join("", assertion.expr("error_message").stringLiterals()))
        .contains("replaces the push subscription")
        .contains("backlog");
    assertThat(TF.variable("subscription_filter").expr("description").text())
        .contains("replaces the subscription")
        .contains("backlog");
  }
}
