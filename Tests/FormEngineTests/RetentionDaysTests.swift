import FormEngine
import Testing

/// A definition's `retentionDays`: a whole number of days from 1 to 36,500, or absent.
@Suite struct RetentionDaysTests {
    static func definition(_ retention: String) throws(DefinitionErrors) -> FormDefinition {
        try FormDefinition(json: Array(#"{"title": "T", \#(retention) "components": [{"text": {"id": "a", "title": "A"}}]}"#.utf8))
    }

    @Test func isReadWhenItIsAWholeNumberOfDays() throws {
        #expect(try Self.definition("").retentionDays == nil)
        #expect(try Self.definition(#""retentionDays": 30,"#).retentionDays == 30)
        #expect(try Self.definition(#""retentionDays": 36500,"#).retentionDays == 36_500)
    }

    @Test(arguments: ["0", "-1", "1.5", "36501", "\"30\"", "null"])
    func anythingElseIsAProblemAtItsPointer(_ value: String) {
        #expect(throws: DefinitionErrors.self) { try Self.definition(#""retentionDays": \#(value),"#) }
        do {
            _ = try Self.definition(#""retentionDays": \#(value),"#)
        } catch {
            #expect(error.problems.map(\.pointer) == ["/retentionDays"], "\(value)")
        }
    }
}
