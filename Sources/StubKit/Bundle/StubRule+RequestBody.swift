import Foundation

extension StubRule {
    /// Whether answering with this rule reads the request body: body conditions, or a template (of
    /// the response or of any response of its sequence) with a `{{body.…}}` or `{{graphql.…}}` placeholder,
    /// or a `graphql` condition.
    var looksAtRequestBody: Bool {
        // A POST's GraphQL operation is read from its body.
        if !request.body.isEmpty || request.graphQL != nil { return true }
        let responses = [response] + (sequence?.responses ?? [])
        return responses.contains { $0.template?.readsRequestBody == true }
    }
}

extension ResponseTemplates {
    /// Whether any part has a `{{body.…}}` or `{{graphql.…}}` placeholder.
    var readsRequestBody: Bool {
        body?.readsRequestBody == true || headers.values.contains { $0.readsRequestBody }
    }
}

extension ResponseTemplate {
    var readsRequestBody: Bool {
        parts.contains {
            switch $0 {
            case .field(.body, _, _), .field(.graphQL, _, _): return true
            default: return false
            }
        }
    }
}
