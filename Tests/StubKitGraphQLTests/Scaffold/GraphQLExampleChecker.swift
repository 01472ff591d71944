#if Tools
import Foundation
import StubKitTestSupport

/// graphql-core (Python), the reference implementation, as an independent judge of scaffolded examples:
/// it executes each operation against the schema with resolvers that read the example by response key
/// (so aliases count) and a type resolver that reads `__typename` where it is selected; an example fits its operation when
/// the result has no error and equals the example (a value of the wrong type is coerced or refused, a
/// missing key fails, an extra key is dropped).
enum GraphQLExampleChecker {
    static var available: Bool { (try? ChildProcessRunner.python(["-c", "import graphql"])) != nil }

    static let script = #"""
    import glob, json, os, sys
    from graphql import (build_schema, parse, execute_sync, GraphQLNonNull, GraphQLList, GraphQLEnumType,
                         GraphQLInputObjectType, OperationDefinitionNode, type_from_ast, Undefined)
    schema_paths, ops, bundle = sys.argv[1].split("\n"), sys.argv[2], sys.argv[3]
    def files(path, exts):
        if os.path.isdir(path):
            return sorted(f for e in exts for f in glob.glob(os.path.join(path, "**", "*." + e), recursive=True))
        return [path]
    schema = build_schema("\n".join(open(f).read() for p in schema_paths for f in files(p, ["graphqls", "graphql"])))
    document = parse("\n".join(open(f).read() for f in files(ops, ["graphql"])))
    rules = json.load(open(os.path.join(bundle, "stubsRules.json")))
    rules = rules["rules"] if isinstance(rules, dict) else rules
    def sample(t):
        if isinstance(t, GraphQLNonNull): return sample(t.of_type)
        if isinstance(t, GraphQLList): return [sample(t.of_type)]
        if isinstance(t, GraphQLEnumType): return next(iter(t.values))
        if isinstance(t, GraphQLInputObjectType):
            return {n: sample(f.type) for n, f in t.fields.items() if isinstance(f.type, GraphQLNonNull) and f.default_value is Undefined}
        return {"Int": 1, "Float": 1.5, "Boolean": True}.get(t.name, "1")
    def resolve(source, info, **args):
        return source[info.path.key]
    def resolve_type(value, info, abstract_type):
        # Without __typename the selection is the same on every possible type (else the value could not
        # be told apart by a client either), so any of them checks it.
        if "__typename" in value: return value["__typename"]
        return sorted(t.name for t in info.schema.get_possible_types(abstract_type))[0]
    for rule in rules:
        name = (rule.get("graphql") or {}).get("operationName")
        if not name: continue
        example = json.load(open(os.path.join(bundle, rule["response"])))
        operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode) and d.name and d.name.value == name)
        variables = {v.variable.name.value: sample(type_from_ast(schema, v.type)) for v in operation.variable_definitions}
        result = execute_sync(schema, document, root_value=example["data"], variable_values=variables, operation_name=name,
                              field_resolver=resolve, type_resolver=resolve_type)
        if result.errors: print(name + ": " + "; ".join(str(e) for e in result.errors))
        elif result.data != example["data"]: print(name + ": graphql-core answers " + json.dumps(result.data) + ", the example is " + json.dumps(example["data"]))
        else: print(name + ": ok")
    """#

    /// One line per operation rule of the bundle: `Name: ok`, or what graphql-core finds wrong.
    static func check(schema: [URL], operations: URL, bundle: URL) throws -> [String] {
        let output = try ChildProcessRunner.python(["-c", script, schema.map(\.path).joined(separator: "\n"), operations.path, bundle.path])
        return output.split(separator: "\n").map(String.init)
    }
}
#endif
