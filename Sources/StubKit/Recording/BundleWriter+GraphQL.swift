import Foundation

extension BundleWriter {
    /// A `graphql` condition as a written rule holds it: which operation, and with which variables.
    package struct GraphQLConditions: Sendable, Hashable {
        package var operationName: String?
        package var operationType: GraphQLOperationType?
        /// A JSON object (compact text with sorted keys) the variables must contain.
        package var variables: String?
        /// A JSON object (compact text with sorted keys) the variables must equal.
        package var variablesEqual: String?
        /// Apollo's persisted query hash, lower-cased.
        package var persistedQuery: String?
        package var document: GraphQLCondition.DocumentPresence?

        package init(operationName: String? = nil, operationType: GraphQLOperationType? = nil, variables: String? = nil,
                     variablesEqual: String? = nil, persistedQuery: String? = nil, document: GraphQLCondition.DocumentPresence? = nil) {
            self.operationName = operationName
            self.operationType = operationType
            self.variables = variables
            self.variablesEqual = variablesEqual
            self.persistedQuery = persistedQuery
            self.document = document
        }

        /// Rules of one operation sit together, the narrower first: exact variables before a subset of
        /// them (which a redacted secret leaves), a subset before none, a hash-only rule before the one
        /// that answers the document.
        var specificity: Int {
            var count = 1
            if variablesEqual != nil { count += 2 } else if variables != nil { count += 1 }
            if persistedQuery != nil { count += 1 }
            if document != nil { count += 1 }
            return count
        }

        var json: JSONText {
            typealias Key = RuleKey.GraphQLKey
            var pairs: [(String, JSONText)] = []
            if let operationName { pairs.append((Key.operationName.rawValue, .string(operationName))) }
            if let operationType { pairs.append((Key.operationType.rawValue, .string(operationType.rawValue))) }
            if let variables { pairs.append((Key.variables.rawValue, BundleWriter.parsed(variables))) }
            if let variablesEqual { pairs.append((Key.variablesEqual.rawValue, BundleWriter.parsed(variablesEqual))) }
            if let persistedQuery { pairs.append((Key.persistedQuery.rawValue, .string(persistedQuery))) }
            if let document { pairs.append((Key.document.rawValue, .string(document.rawValue))) }
            return .object(pairs)
        }
    }
}
