import FormRegex
print("placeholder")
