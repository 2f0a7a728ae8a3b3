// celcheck judges probe-lint's admission policies offline with the API server's own code: each
// ValidatingAdmissionPolicy is type-checked as kube-controller-manager checks it (against the
// built-in types' OpenAPI schemas) and compiled and evaluated as kube-apiserver's admission plugin
// does (k8s.io/apiserver's composited CEL compiler and policy validator), for each object given.
//
// stdin:  {"policies": [every object of `probe-lint policies`], "namespace": {a Namespace}, "objects": [objects to create]}
// stdout: {"typeCheck": {"<policy>": ["<warning>", ...]}, "results": [{"<policy>": {"failed": ["<message>"], "errors": ["<message>"], "audit": {"<key>": "<value>"}}}]}
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/generated/openapi"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
)

// The API server's create strategies: what it does to an object (PrepareForCreate) and whether it
// accepts it (Validate) before validating admission policies see it.
var strategies = map[schema.GroupKind]rest.RESTCreateStrategy{
	{Group: "", Kind: "Pod"}:                   pod.Strategy,
	{Group: "", Kind: "ReplicationController"}: replicationcontroller.Strategy,
	{Group: "", Kind: "PodTemplate"}:           podtemplate.Strategy,
	{Group: "apps", Kind: "Deployment"}:        deployment.Strategy,
	{Group: "apps", Kind: "StatefulSet"}:       statefulset.Strategy,
	{Group: "apps", Kind: "DaemonSet"}:         daemonset.Strategy,
	{Group: "apps", Kind: "ReplicaSet"}:        replicaset.Strategy,
	{Group: "batch", Kind: "Job"}:              job.Strategy,
	{Group: "batch", Kind: "CronJob"}:          cronjob.Strategy,
}

type input struct {
	Policies  []json.RawMessage `json:"policies"`
	Namespace corev1.Namespace  `json:"namespace"`
	Objects   []map[string]any  `json:"objects"`
}

type outcome struct {
	// Refused: the object does not decode into its type, so the API server refuses it before admission.
	Refused string            `json:"refused,omitempty"`
	Failed  []string          `json:"failed"`
	Errors  []string          `json:"errors"`
	Audit   map[string]string `json:"audit"`
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "celcheck:", err)
		os.Exit(1)
	}
}

// typeChecking: -typecheck also checks the policies as kube-controller-manager does (about two CPU-minutes for probe-lint's).
var typeChecking = len(os.Args) > 1 && os.Args[1] == "-typecheck"

func run(in io.Reader, out io.Writer) error {
	var given input
	if err := json.NewDecoder(in).Decode(&given); err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	var policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	var params *unstructured.Unstructured
	for _, raw := range given.Policies {
		var head metav1.TypeMeta
		if err := json.Unmarshal(raw, &head); err != nil {
			return err
		}
		switch head.Kind {
		case "ValidatingAdmissionPolicy":
			policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := json.Unmarshal(raw, policy); err != nil {
				return fmt.Errorf("a ValidatingAdmissionPolicy: %w", err)
			}
			policies = append(policies, policy)
		case "ConfigMap":
			params = &unstructured.Unstructured{}
			if err := params.UnmarshalJSON(raw); err != nil {
				return fmt.Errorf("the parameters: %w", err)
			}
		}
	}

	mapper := testrestmapper.TestOnlyStaticRESTMapper(k8sscheme.Scheme)
	checker := &validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme),
		RestMapper:     mapper,
	}
	typeCheck := map[string][]string{}
	validators := map[string]validating.Validator{}
	for _, policy := range policies {
		if typeChecking {
			warnings := []string{}
			for _, warning := range checker.Check(policy) {
				warnings = append(warnings, warning.FieldRef+": "+warning.Warning)
			}
			typeCheck[policy.Name] = warnings
		}
		validators[policy.Name] = compile(policy)
	}

	results := []map[string]outcome{}
	for _, object := range given.Objects {
		asGiven := &unstructured.Unstructured{Object: object}
		gvk := asGiven.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s: %w", gvk, err)
		}
		byPolicy := map[string]outcome{}
		typed, err := admitted(object, gvk, mapping.Resource)
		if err != nil {
			for _, policy := range policies {
				byPolicy[policy.Name] = outcome{Refused: err.Error(), Failed: []string{}, Errors: []string{}, Audit: map[string]string{}}
			}
			results = append(results, byPolicy)
			continue
		}
		attributes := admission.NewAttributesRecord(typed, nil, gvk, asGiven.GetNamespace(), asGiven.GetName(), mapping.Resource, "",
			admission.Create, &metav1.CreateOptions{}, true, &user.DefaultInfo{Name: "probe-lint-celcheck"})
		versionedAttributes := &admission.VersionedAttributes{Attributes: attributes, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(typed)}
		for _, policy := range policies {
			var versionedParams runtime.Object
			if params != nil {
				versionedParams = params
			}
			result := validators[policy.Name].Validate(context.Background(), mapping.Resource, versionedAttributes, versionedParams, &given.Namespace,
				celconfig.RuntimeCELCostBudget, nil)
			judged := outcome{Failed: []string{}, Errors: []string{}, Audit: map[string]string{}}
			for _, decision := range result.Decisions {
				switch decision.Evaluation {
				case validating.EvalDeny:
					judged.Failed = append(judged.Failed, decision.Message)
				case validating.EvalError:
					judged.Errors = append(judged.Errors, decision.Message)
				}
			}
			for _, annotation := range result.AuditAnnotations {
				if annotation.Action == validating.AuditAnnotationActionPublish {
					judged.Audit[annotation.Key] = annotation.Value
				} else if annotation.Action == validating.AuditAnnotationActionError {
					judged.Errors = append(judged.Errors, annotation.Error)
				}
			}
			byPolicy[policy.Name] = judged
		}
		results = append(results, byPolicy)
	}
	return json.NewEncoder(out).Encode(map[string]any{"typeCheck": typeCheck, "results": results})
}

// admitted is the object as the API server holds it when validating admission policies run: decoded
// into its Go type and defaulted, prepared and validated by its create strategy, converted back to
// the version sent. An error is the API server's refusal.
func admitted(object map[string]any, gvk schema.GroupVersionKind, resource schema.GroupVersionResource) (runtime.Object, error) {
	typed, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	// Unknown fields are dropped, as for a request without fieldValidation (the API server warns).
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object, typed); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(typed)
	strategy, known := strategies[gvk.GroupKind()]
	if !known {
		return nil, fmt.Errorf("no create strategy for %s", gvk)
	}
	internal, err := legacyscheme.Scheme.ConvertToVersion(typed, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, err
	}
	accessor := &unstructured.Unstructured{Object: object}
	ctx := genericapirequest.WithNamespace(context.Background(), accessor.GetNamespace())
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: gvk.Group, APIVersion: gvk.Version, Resource: resource.Resource, Namespace: accessor.GetNamespace(), Name: accessor.GetName(),
	})
	objectMeta, err := meta.Accessor(internal)
	if err != nil {
		return nil, err
	}
	rest.FillObjectMetaSystemFields(objectMeta)
	strategy.PrepareForCreate(ctx, internal)
	if errs := strategy.Validate(ctx, internal); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	versioned, err := legacyscheme.Scheme.ConvertToVersion(internal, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	versioned.GetObjectKind().SetGroupVersionKind(gvk)
	return versioned, nil
}

// compile builds the policy's validator as the admission plugin does (validating.compilePolicy,
// which is not exported): variables stored first, then match conditions, validations, audit
// annotations and message expressions, with strict cost.
func compile(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParams := policy.Spec.ParamKind != nil
	optionalVars := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	expressionOptionalVars := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, policy.Spec.FailurePolicy, err)
	}
	variables := make([]plugincel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, variable := range policy.Spec.Variables {
		variables[i] = &validating.Variable{Name: variable.Name, Expression: variable.Expression}
	}
	compiler.CompileAndStoreVariables(variables, optionalVars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(policy.Spec.MatchConditions) > 0 {
		conditions := make([]plugincel.ExpressionAccessor, len(policy.Spec.MatchConditions))
		for i := range policy.Spec.MatchConditions {
			conditions[i] = (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(conditions, optionalVars, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}
	validations := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	messages := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, validation := range policy.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: validation.Expression, Message: validation.Message, Reason: validation.Reason}
		if validation.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: validation.MessageExpression}
		}
	}
	annotations := make([]plugincel.ExpressionAccessor, len(policy.Spec.AuditAnnotations))
	for i, annotation := range policy.Spec.AuditAnnotations {
		annotations[i] = &validating.AuditAnnotationCondition{Key: annotation.Key, ValueExpression: annotation.ValueExpression}
	}
	return validating.NewValidator(
		compiler.CompileCondition(validations, optionalVars, environment.StoredExpressions),
		matcher,
		compiler.CompileCondition(annotations, optionalVars, environment.StoredExpressions),
		compiler.CompileCondition(messages, expressionOptionalVars, environment.StoredExpressions),
		policy.Spec.FailurePolicy,
		nil,
	)
}
