/// The stable code of every diagnostic StubKit reports.
///
/// Codes never change meaning once published: scripts and CI filters match on them. `docs/diagnostics.md`
/// describes each one with an example.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as printed: `SK` and three digits.
    public var rawValue: String
    /// The severity the code is reported with.
    public var defaultSeverity: Diagnostic.Severity
    /// What the code means, in one line (as listed in `docs/diagnostics.md`).
    public var summary: String

    /// The known code with this text (`"SK012"`), or `nil`.
    public init?(rawValue: String) {
        guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    init(_ rawValue: String, _ severity: Diagnostic.Severity, _ summary: String) {
        self.rawValue = rawValue
        self.defaultSeverity = severity
        self.summary = summary
    }

    /// The code as printed (`SK012`).
    public var description: String { rawValue }

    /// Codes are equal when their text is.
    public static func == (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue == rhs.rawValue }
    /// Hashes the code's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    // MARK: Files and syntax
    package static let unreadableFile = DiagnosticCode("SK001", .error, "a file or folder cannot be read")
    package static let malformedFile = DiagnosticCode("SK002", .error, "the rules file is not valid JSON or property list")
    package static let multipleRulesFiles = DiagnosticCode("SK003", .error, "a bundle folder holds more than one rules file")
    package static let missingRulesFile = DiagnosticCode("SK004", .error, "a bundle folder holds no rules file")
    package static let invalidTopLevel = DiagnosticCode("SK005", .error, "the top level is neither a list of rules nor a dictionary with 'rules'")
    package static let emptyBundle = DiagnosticCode("SK006", .warning, "the bundle has no rules")
    package static let wideEncoding = DiagnosticCode("SK007", .note, "a rules file in UTF-16 or UTF-32: read, but UTF-8 is what other tools and diffs expect")

    // MARK: Keys and values
    package static let unknownKey = DiagnosticCode("SK010", .error, "a key StubKit does not know (often a typo)")
    package static let wrongType = DiagnosticCode("SK011", .error, "a value has the wrong type")
    package static let missingKey = DiagnosticCode("SK012", .error, "a required key is missing")
    package static let invalidStatus = DiagnosticCode("SK013", .error, "a status code outside 100...599")
    package static let unknownMethod = DiagnosticCode("SK014", .error, "an HTTP method that is not a valid token")
    package static let invalidPathPattern = DiagnosticCode("SK015", .error, "a path pattern that cannot be parsed")
    package static let invalidRegex = DiagnosticCode("SK016", .error, "a regular expression that does not compile")
    package static let negativeDelay = DiagnosticCode("SK017", .error, "a negative or non-finite delay")
    package static let unknownError = DiagnosticCode("SK018", .error, "an unknown simulated network error")
    package static let conflictingKeys = DiagnosticCode("SK019", .error, "keys that cannot be used together")
    package static let duplicateKey = DiagnosticCode("SK020", .error, "the same key twice in one dictionary")
    package static let invalidValue = DiagnosticCode("SK021", .error, "a value of the right type that is not allowed")

    // MARK: Response files
    package static let missingResponseFile = DiagnosticCode("SK030", .error, "a response file that does not exist")
    package static let responseOutsideBundle = DiagnosticCode("SK031", .error, "a response file outside the bundle folder")
    package static let invalidJSONResponse = DiagnosticCode("SK032", .error, "a response file that should be JSON and is not")
    package static let unusedFile = DiagnosticCode("SK033", .warning, "a file in the bundle that no rule uses")

    // MARK: Rules as a set
    package static let duplicateRule = DiagnosticCode("SK040", .warning, "two rules with the same request conditions")
    package static let shadowedRule = DiagnosticCode("SK041", .warning, "a rule that can never match because an earlier one always does")
    package static let caseCollidingTemplates = DiagnosticCode("SK042", .error, "template names that differ only in case")

    // MARK: Legacy format
    package static let legacyKey = DiagnosticCode("SK050", .note, "a legacy key with a current equivalent")

    // MARK: Templates
    package static let unknownTemplateField = DiagnosticCode("SK070", .error, "a template placeholder that names an unknown field")

    // MARK: Activation
    package static let unknownTemplate = DiagnosticCode("SK060", .error, "a launch argument names a template that no search folder has")
    package static let tooManyEngines = DiagnosticCode("SK061", .error, "more StubEngines with sessions of their own alive at once than StubKit can route")

    // MARK: Values that can never work
    package static let invalidHeader = DiagnosticCode("SK022", .error, "a header name or value with a line break or another character HTTP forbids")
    package static let delayTooLong = DiagnosticCode("SK023", .error, "a delay longer than the one-hour maximum")
    package static let plusInQueryValue = DiagnosticCode("SK024", .note, "a written query value with '+', which matches only a '+' sent as is, not '%2B'")
    package static let eventWithoutData = DiagnosticCode("SK025", .warning, "a Server-Sent Event with 'event' but no 'data', which clients never dispatch")
    package static let operationNameInBody = DiagnosticCode("SK026", .note, "a rule that tells GraphQL operations apart by 'operationName' in the body instead of 'graphql'")
    // MARK: Matching cost
    package static let backtrackingRegex = DiagnosticCode("SK080", .warning, "a regular expression outside the linear-time subset, matched under a time budget")
    package static let alwaysCheckedRegex = DiagnosticCode("SK081", .note, "a URL regular expression with no literal text to index, checked on every request")

    // MARK: Against an OpenAPI document (`stublint lint --openapi`)
    package static let unreadableSpec = DiagnosticCode("SK200", .error, "the OpenAPI document cannot be read or is not OpenAPI 3.0, 3.1 or 3.2")
    package static let operationNotFound = DiagnosticCode("SK201", .error, "the rule's method and path (and host) match no operation of the OpenAPI document")
    package static let pathParameterMismatch = DiagnosticCode("SK202", .error, "a literal path segment where the operation has a parameter, and the value does not fit the parameter's schema")
    package static let undocumentedStatus = DiagnosticCode("SK203", .error, "a status the operation does not document (and it has no 'default' response)")
    package static let undocumentedContentType = DiagnosticCode("SK204", .error, "a content type the documented response does not list")
    package static let bodySchemaViolation = DiagnosticCode("SK205", .error, "a response body that does not validate against the documented schema")
    package static let placeholderDecidesType = DiagnosticCode("SK206", .note, "in a templated body, a placeholder decides a value's type at serve time, so the schema cannot check it")
    package static let operationNotStubbed = DiagnosticCode("SK207", .note, "an operation of the OpenAPI document that no rule stubs (with --coverage)")
    package static let ruleNotChecked = DiagnosticCode("SK208", .note, "a rule the OpenAPI checks cannot place (a urlRegex, a '**' path, a body that is not JSON)")

    // MARK: Recorded traffic against an OpenAPI document (`stublint traffic --openapi`)
    package static let trafficOperationNotFound = DiagnosticCode("SK210", .error, "a request whose method, path and host match no operation of the OpenAPI document")
    package static let trafficParameterInvalid = DiagnosticCode("SK211", .error, "a request without a required path, query or header parameter, or with a value that does not fit its schema")
    package static let trafficRequestBodyInvalid = DiagnosticCode("SK212", .error, "a request body missing where required, of a content type the operation does not list, or not valid against its schema")
    package static let trafficResponseStatusUndocumented = DiagnosticCode("SK213", .error, "a real backend's response status the operation does not document (and it has no 'default')")
    package static let trafficResponseBodyInvalid = DiagnosticCode("SK214", .error, "a real backend's response of a content type the operation does not list, or a body not valid against its schema")
    package static let trafficNotChecked = DiagnosticCode("SK215", .note, "traffic the checks cannot check: a cut-off body, a body the spec does not describe, a recorded rule with a path pattern")
    package static let unreadableTraffic = DiagnosticCode("SK216", .error, "a line of a live journal that cannot be read (not JSON, not UTF-8, cut off, too long); skipped")
    package static let recordedResponseDrift = DiagnosticCode("SK217", .error, "a response a recording kept from the real backend that does not fit the OpenAPI document: the backend changed, or the spec is out of date")
    package static let trafficGraphQLDocumentInvalid = DiagnosticCode("SK218", .error, "a GraphQL request whose document does not parse, is not valid against the schema, or lacks the operation it names (`stublint traffic --graphql-schema`)")
    package static let trafficGraphQLVariablesInvalid = DiagnosticCode("SK219", .error, "a GraphQL request whose variables do not fit the operation's variable definitions: a required one missing, an undeclared one, a value of the wrong type")

    // MARK: Against a GraphQL schema and operation documents (`stublint lint --graphql-schema`)
    package static let unreadableGraphQLSchema = DiagnosticCode("SK300", .error, "the GraphQL schema cannot be read, does not parse, or does not build")
    package static let invalidGraphQLDocument = DiagnosticCode("SK301", .error, "an operation document that does not parse, or an operation that is not valid against the schema")
    package static let graphQLOperationNotFound = DiagnosticCode("SK302", .error, "the rule's 'graphql.operationName' names no operation of the operation documents")
    package static let graphQLOperationTypeMismatch = DiagnosticCode("SK303", .error, "the rule's 'graphql.operationType' is not the type of the operation in the documents")
    package static let graphQLVariablesMismatch = DiagnosticCode("SK304", .error, "the rule's 'graphql.variables' or 'variablesEqual' do not fit the operation's variable definitions")
    package static let graphQLDataMismatch = DiagnosticCode("SK305", .error, "the response's 'data' does not fit the operation's selection set (keys, types, nullability, lists, __typename)")
    package static let graphQLResponseMalformed = DiagnosticCode("SK306", .error, "the response is not a GraphQL response: neither 'data' nor 'errors', 'errors' not in the spec's shape, or another top-level key")
    package static let graphQLRuleNotChecked = DiagnosticCode("SK307", .note, "a rule the GraphQL checks cannot place, or check only in part (no operation name, no --operations, a body that is not JSON)")
    package static let graphQLOperationNotStubbed = DiagnosticCode("SK308", .note, "an operation of the operation documents that no rule stubs (with --coverage)")

    package static let all: [DiagnosticCode] = [
        .unreadableFile, .malformedFile, .multipleRulesFiles, .missingRulesFile, .invalidTopLevel, .emptyBundle, .wideEncoding,
        .unknownKey, .wrongType, .missingKey, .invalidStatus, .unknownMethod, .invalidPathPattern, .invalidRegex,
        .negativeDelay, .unknownError, .conflictingKeys, .duplicateKey, .invalidValue,
        .missingResponseFile, .responseOutsideBundle, .invalidJSONResponse, .unusedFile,
        .duplicateRule, .shadowedRule, .caseCollidingTemplates, .legacyKey, .unknownTemplateField, .unknownTemplate, .tooManyEngines,
        .invalidHeader, .delayTooLong, .plusInQueryValue, .eventWithoutData, .operationNameInBody,
        .backtrackingRegex, .alwaysCheckedRegex,
        .unreadableSpec, .operationNotFound, .pathParameterMismatch, .undocumentedStatus, .undocumentedContentType,
        .bodySchemaViolation, .placeholderDecidesType, .operationNotStubbed, .ruleNotChecked,
        .trafficOperationNotFound, .trafficParameterInvalid, .trafficRequestBodyInvalid, .trafficResponseStatusUndocumented,
        .trafficResponseBodyInvalid, .trafficNotChecked, .unreadableTraffic, .recordedResponseDrift,
        .trafficGraphQLDocumentInvalid, .trafficGraphQLVariablesInvalid,
        .unreadableGraphQLSchema, .invalidGraphQLDocument, .graphQLOperationNotFound, .graphQLOperationTypeMismatch, .graphQLVariablesMismatch,
        .graphQLDataMismatch, .graphQLResponseMalformed, .graphQLRuleNotChecked, .graphQLOperationNotStubbed,
    ]
}
