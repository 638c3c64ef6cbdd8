extension FormDefinition {
    /// The language to answer in for `preferences` (RFC 4647 lookup among ``languages``), or
    /// ``defaultLanguage`` when none of them is asked for.
    public func language(for preferences: LanguagePriorityList) -> String {
        preferences.lookup(languages) ?? defaultLanguage
    }

    /// The normalized definition in one language: every text map replaced by its text in
    /// `language`, or in ``defaultLanguage`` where the map has none in that one.
    public func normalizedJSON(language: String) -> JSONValue {
        guard isTranslated else { return normalizedJSON() }
        return Self.localized(normalizedJSON(), topLevel: true, pick: TextLanguages(language: language, defaultLanguage: defaultLanguage))
    }

    /// The keys whose values a person reads, at the top and in a component's properties.
    private static let textKeys = ["title", "description", "placeholder"]

    /// A definition object, or a component's properties, with its texts in one language; components,
    /// options and messages inside are localized too.
    static func localized(_ value: JSONValue, topLevel: Bool, pick: TextLanguages) -> JSONValue {
        guard case .object(var object) = value else { return value }
        for key in textKeys where !topLevel || key != "placeholder" {
            if let text = pick(object[key]) { object[key] = .string(text) }
        }
        if !topLevel, case .array(let options)? = object["options"] {
            object["options"] = .array(options.map { localized($0, topLevel: false, pick: pick) })
        }
        if !topLevel, case .object(var messages)? = object["messages"] {
            for member in messages.members {
                if let text = pick(member.value) { messages[member.key] = .string(text) }
            }
            object["messages"] = .object(messages)
        }
        if case .array(let components)? = object["components"] {
            object["components"] = .array(components.map { component in
                guard case .object(var wrapper) = component, wrapper.count == 1 else { return component }
                let type = wrapper.members[0].key
                wrapper[type] = localized(wrapper.members[0].value, topLevel: false, pick: pick)
                return .object(wrapper)
            })
        }
        return .object(object)
    }
}
