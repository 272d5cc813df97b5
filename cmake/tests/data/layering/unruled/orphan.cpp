// style/layering-catches-a-violation: a folder no layering rule names.
#include "core/text.hpp"
