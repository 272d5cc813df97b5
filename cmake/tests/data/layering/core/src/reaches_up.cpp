// style/layering-catches-a-violation: the core including the engine breaks the layering.
#include "engine/script.hpp"
