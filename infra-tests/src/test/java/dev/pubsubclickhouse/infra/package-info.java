/**
 * Tests of the deployment files, without Terraform, gcloud or a cloud account: the Terraform
 * configuration (push authentication, dead-lettering, IAM, images, secrets, validation, docs),
 * cloudbuild.yaml (tests, multi-arch images, rollout) and the SQL schema files. Each test names the
 * rule it holds the files to.
 */
package dev.pubsubclickhouse.infra;
