extension ValidationRun {
    /// `minLength`/`maxLength` on an `integer` or `decimal`: characters as typed, sign included
    /// (`"-0012"` is five). A JSON number keeps no text of its own once read, so it counts as its
    /// shortest text (`JSONValue.numberText`: `1.50` as `1.5`, `1e3` as `1000`).
    mutating func typedLengthFits(_ rule: InputRule, _ raw: JSONValue) -> Bool {
        guard rule.spec.minLength != nil || rule.spec.maxLength != nil else { return true }
        let text: String
        switch raw {
        case .string(let s): text = s
        case .number(let n): text = JSONValue.numberText(n)
        default: return true
        }
        return lengthWithinBounds(rule, ValueRules.length(text, limit: maxValueLength))
    }

    /// Whether `length` characters meet the input's `minLength`/`maxLength`; records the error if not.
    mutating func lengthWithinBounds(_ rule: InputRule, _ length: Int) -> Bool {
        within(length, rule.spec.minLength, rule.spec.maxLength, (.minLength, .maxLength), (.minLength, .maxLength), rule, { String($0) })
    }

    /// `minValue`/`maxValue` on a `numerical`: its digits compared as a number, exactly, however
    /// many there are; the text is stored as typed. Text that is no number (a custom `regex` may
    /// let it through) cannot be compared, and is refused with the type's code.
    mutating func digitsInBounds(_ rule: InputRule, _ s: String) -> Bool {
        guard let value = DecimalText(s) else {
            fail(.numerical, .text(.numericalNumber), rule)
            return false
        }
        return within(value, rule.spec.digitBounds.min, rule.spec.digitBounds.max, (.minValue, .maxValue), (.minValue, .maxValue), rule,
                      { $0.text })
    }
}
