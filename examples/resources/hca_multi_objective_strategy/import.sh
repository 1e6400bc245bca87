# A MultiObjectiveElasticityStrategy is imported as <namespace>/<name>; set
# model_file in the configuration (the import reads the model's hash from
# its ConfigMap).
terraform import hca_multi_objective_strategy.web shop/web
