package stats

import "errors"

func errorsIsInput(err error) bool { return errors.Is(err, ErrInput) }
