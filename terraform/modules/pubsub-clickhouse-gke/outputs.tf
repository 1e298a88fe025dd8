output "service_account_email" {
  description = "Google service account the pods act as through Workload Identity."
  value       = google_service_account.workload.email
}

output "kubernetes_service_account" {
  description = "Kubernetes service account of the pods, NAMESPACE/NAME."
  value       = "${var.namespace}/${kubernetes_service_account_v1.workload.metadata[0].name}"
}

output "deployment_name" {
  description = "Name of the Deployment (kubectl -n NAMESPACE rollout status deployment/NAME)."
  value       = kubernetes_deployment_v1.ingest.metadata[0].name
}

output "namespace" {
  description = "Namespace of the workload."
  value       = var.namespace
}

output "node_selector" {
  description = "Node selector of the pods: arm64, and the machine family and compute class when set."
  value       = local.node_selector
}

output "termination_grace_period_seconds" {
  description = "terminationGracePeriodSeconds of the pods: the service's SHUTDOWN_GRACE_SECONDS plus termination_margin_seconds."
  value       = local.termination_grace_period_seconds
}

output "scaler" {
  description = "Engine that scales the Deployment on the subscription's backlog: hpa or keda."
  value       = var.scaler
}
