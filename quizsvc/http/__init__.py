"""The request edge shared by the API and the pages: identity, CSRF, locale, errors, limits."""
